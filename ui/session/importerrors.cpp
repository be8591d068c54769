// One translated sentence per CurveErrorCode.
#include "ui/session/importerrors.h"

#include "ui/language.h"
#include "ui/localizedtext.h"

namespace accumlab::ui {

namespace {

// A schema name found in a file is shown up to this many characters.
constexpr int kMaxShownSchema = 40;

} // namespace

QString ImportErrors::reason(const CurveErrorDetail &d)
{
    const QString point = count(d.point);
    const QString field = QString::fromStdString(d.field);
    switch (d.code) {
    case CurveErrorCode::FileTooLarge:
        return tr("the file is %1 MiB; an accum-curve file is at most %2 MiB")
            .arg(count(d.number), count(d.limit));
    case CurveErrorCode::NotJson:
        return d.number > 0 ? tr("it is not valid JSON: the text breaks off or goes wrong at byte %1")
                                  .arg(count(d.number))
                            : tr("it is not valid JSON");
    case CurveErrorCode::TooDeep:
        return tr("the file nests deeper than %1 levels; it is not an accum-curve file").arg(count(d.limit));
    case CurveErrorCode::NotAnObject:
        return tr("the file is JSON but not an object with a schema and points; it is not an accum-curve file");
    case CurveErrorCode::WrongSchema: {
        if (d.found.empty())
            return tr("the file names no schema; an accum-curve file says \"%1\"").arg(QLatin1String(kCurveSchema));
        QString found = QString::fromStdString(d.found);
        if (found.size() > kMaxShownSchema)
            found = found.left(kMaxShownSchema) + QStringLiteral("…");
        return tr("the file's schema is \"%1\", not \"%2\"").arg(found, QLatin1String(kCurveSchema));
    }
    case CurveErrorCode::NoPoints:
        return tr("the file has no 'points' list");
    case CurveErrorCode::EmptyPoints:
        return tr("the file's 'points' list is empty");
    case CurveErrorCode::PointNotAnObject:
        return tr("point %1 is not an object with fields").arg(point);
    case CurveErrorCode::MissingField:
        return tr("point %1 has no field '%2'").arg(point, field);
    case CurveErrorCode::NotANumber:
        return tr("in point %1, field '%2' is not a number").arg(point, field);
    case CurveErrorCode::NotFinite:
        return tr("in point %1, field '%2' is not a finite number").arg(point, field);
    case CurveErrorCode::NotAWholeNumber:
        return tr("in point %1, field '%2' must be a whole number of at least %3")
            .arg(point, field, count(d.limit));
    case CurveErrorCode::Negative:
        return tr("in point %1, field '%2' is negative").arg(point, field);
    case CurveErrorCode::NotTrueOrFalse:
        return tr("in point %1, field '%2' is neither true nor false").arg(point, field);
    case CurveErrorCode::NotAList:
        return tr("in point %1, field '%2' is not a list").arg(point, field);
    case CurveErrorCode::BatchIdentity:
        return tr("in point %1, effective_batch is %2, which is not %3")
            .arg(point, count(d.number),
                 LanguageManager::ltr(QStringLiteral("micro_batch × accum_steps × world_size")));
    case CurveErrorCode::OutOfRange:
        return tr("in point %1, field '%2' holds a value no measurement gives (too large, or too close to zero)")
            .arg(point, field);
    }
    return tr("it is not a valid accum-curve file");
}

} // namespace accumlab::ui
