// The content layer (core/content.h): the one number formatter in every language and digit
// setting, template filling, and the validation of the embedded content, which must hold for
// the shipped files and must fail for each fault it exists to catch, planted in a copy.
#include "core/content.h"
#include "core/errors.h"
#include "core/experiments.h"
#include "core/quiz.h"

#include <QtTest>

using namespace accumlab;

namespace {

// The shipped content with one file replaced (or added, or with `text` empty: removed).
std::map<std::string, std::string> withFile(const std::string &path, const std::string &text)
{
    auto files = embeddedContent();
    if (text.empty())
        files.erase(path);
    else
        files[path] = text;
    return files;
}

QString joined(const std::vector<std::string> &problems)
{
    QStringList out;
    for (const auto &p : problems)
        out << QString::fromStdString(p);
    return out.join(QLatin1Char('\n'));
}

} // namespace

class TestContent : public QObject {
    Q_OBJECT
private slots:
    void formatsNumbers_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("language");
        QTest::addColumn<bool>("latin");
        QTest::addColumn<QString>("expected");
        const QString lrm(QChar(0x200E));
        QTest::newRow("fixed en") << 4.0 << ".4f" << "en" << false << "4.0000";
        QTest::newRow("fixed fa") << 4.0 << ".4f" << "fa" << false << "۴٫۰۰۰۰";
        QTest::newRow("fixed fa latin") << 4.0 << ".4f" << "fa" << true << "4.0000";
        QTest::newRow("exponent en") << 7.45e-9 << ".2e" << "en" << false << "7.45×10⁻⁹";
        QTest::newRow("exponent fa") << 7.45e-9 << ".2e" << "fa" << false << lrm + "۷٫۴۵×۱۰⁻⁹" + lrm;
        QTest::newRow("exponent fa latin") << 7.45e-9 << ".2e" << "fa" << true << lrm + "7.45×10⁻⁹" + lrm;
        QTest::newRow("positive exponent") << 12345.0 << ".1e" << "en" << false << "1.2×10⁴";
        QTest::newRow("general small") << 3.7e-9 << "" << "en" << false << "3.7×10⁻⁹";
        QTest::newRow("general plain") << 0.25 << "" << "en" << false << "0.25";
        QTest::newRow("general integer") << 16.0 << "" << "fa" << false << "۱۶";
        QTest::newRow("significant") << 0.0123456 << ".3g" << "en" << false << "0.0123";
        QTest::newRow("percent en") << 0.94 << ".0%" << "en" << false << "94%";
        QTest::newRow("percent fa") << 0.94 << ".0%" << "fa" << false << "۹۴٪";
        QTest::newRow("integer") << 15.6 << "d" << "fa" << false << "۱۶";
        QTest::newRow("negative fa") << -1.5 << ".1f" << "fa" << false << lrm + "−۱٫۵" + lrm;
        QTest::newRow("negative zero") << -0.00001 << ".2f" << "en" << false << "0.00";
        QTest::newRow("infinity") << std::numeric_limits<double>::infinity() << ".2f" << "en" << false << "∞";
    }
    void formatsNumbers()
    {
        QFETCH(double, value);
        QFETCH(QString, spec);
        QFETCH(QString, language);
        QFETCH(bool, latin);
        QFETCH(QString, expected);
        const std::string got = formatNumber(value, spec.toStdString(), {language.toStdString(), latin});
        QCOMPARE(QString::fromStdString(got), expected);
        // No caret and no C exponent survives in any form.
        QVERIFY(!QString::fromStdString(got).contains(QLatin1Char('^')));
        QVERIFY(!QString::fromStdString(got).contains(QLatin1String("e-")));
    }

    void refusesUnknownSpecs_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("printf") << "%.4f";
        QTest::newRow("no precision") << ".f";
        QTest::newRow("unknown kind") << ".2x";
    }
    void refusesUnknownSpecs()
    {
        QFETCH(QString, spec);
        QVERIFY_THROWS_EXCEPTION(ContentError, formatNumber(1.0, spec.toStdString()));
    }

    void fillsTemplates()
    {
        TextArgs args;
        args.numbers["ratio"] = 16.0;
        args.strings["optimizer"] = "adamw";
        QCOMPARE(fillTemplate("{optimizer}: {ratio:.2f}x {{literal}}", args),
                 std::string("adamw: 16.00x {literal}"));
        QCOMPARE(fillTemplate("{ratio:.2f} برابر", args, {"fa", false}), std::string("۱۶٫۰۰ برابر"));
        // A placeholder with no value is an error, never a silent blank.
        QVERIFY_THROWS_EXCEPTION(ContentError, fillTemplate("{missing:.2f}", args));
        // A backtick inside a value is part of the value, not a code span (an OS message or a
        // path may hold one); the template's own spans are still marked.
        TextArgs odd;
        odd.strings["path"] = "/tmp/a`b";
        QCOMPARE(renderLocalized(LocalizedText{{{"en", "`x` at {path}"}, {"fa", "`x` در {path}"}}}, odd, {"en", false}),
                 std::string("x at /tmp/a`b"));
        QCOMPARE(placeholderNames("{a} {b:.2f} {a:d} {{c}}"), (std::vector<std::string>{"a", "b"}));
    }

    void marksCodeAndDigits()
    {
        const std::string lrm = "\u200e";
        QCOMPARE(markCode("call `backward()` once", {"en", false}), std::string("call backward() once"));
        QCOMPARE(markCode("`backward()` را", {"fa", false}), lrm + "backward()" + lrm + " را");
        // The Latin-digits setting reaches digits written in the content itself.
        QCOMPARE(markCode("۳ از ۴ و ۰٫۵", {"fa", true}), std::string("3 از 4 و 0.5"));
        QCOMPARE(markCode("۳ از ۴", {"fa", false}), std::string("۳ از ۴"));
        QVERIFY_THROWS_EXCEPTION(ContentError, markCode("an `open span", {"en", false}));
    }

    void shippedContentIsComplete()
    {
        const auto problems = validateContent(embeddedContent());
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
        // Every experiment of the catalog has its file, title and summary in every language.
        for (const auto &info : experimentCatalog())
            for (const auto &lang : contentLanguages()) {
                QVERIFY(!experimentTitle(info.id, {lang.code, false}).empty());
                QVERIFY(!experimentSummary(info, {lang.code, false}).empty());
            }
        QVERIFY(!quizQuestions().empty());
    }

    // Every error code of the content renders in every language (a placeholder named in a
    // translation but never given by core would throw here), and a coded error's what() is its
    // English sentence while text() follows the reader.
    void everyErrorCodeRenders()
    {
        int codes = 0;
        for (const auto &path : contentPaths()) {
            if (path.rfind("errors/", 0) != 0)
                continue;
            const std::string group = path.substr(7, path.size() - 7 - 5);
            for (const auto &[key, text] : contentJson(path).items()) {
                if (!text.is_object())
                    continue;
                const std::string code = group + "/" + key;
                // Arguments for every placeholder: a number where the English gives a format.
                TextArgs args;
                const std::string en = text.at("en").get<std::string>();
                for (const auto &name : placeholderNames(en)) {
                    const bool numeric = en.find("{" + name + ":") != std::string::npos;
                    if (numeric)
                        args.numbers[name] = 16;
                    else
                        args.strings[name] = "x";
                }
                for (const auto &lang : contentLanguages()) {
                    const std::string sentence = errorSentence(code, args, {lang.code, false});
                    QVERIFY2(!sentence.empty(), code.c_str());
                }
                const CodedError e(code, args);
                QCOMPARE(std::string(e.what()), errorSentence(code, args, {"en", false}));
                ++codes;
            }
        }
        QVERIFY(codes > 0);
        QVERIFY_THROWS_EXCEPTION(ContentError, CodedError("preset/no-such-code", {}));
        QVERIFY_THROWS_EXCEPTION(ContentError, CodedError("no-group", {}));
    }

    // Each fault the validation exists to catch, planted in a copy of the shipped content.
    void plantedFaultsAreReported_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a language missing")
            << "experiments/planted.json" << R"({"title": {"en": "A title"}})" << "no text in \"fa\"";
        QTest::newRow("an empty translation")
            << "experiments/planted.json" << R"({"title": {"en": "A title", "fa": ""}})" << "no text in \"fa\"";
        QTest::newRow("placeholders differ")
            << "experiments/planted.json"
            << R"({"claims": {"c": {"en": "ratio {ratio:.2f}", "fa": "نسبت {other:.2f}"}}})"
            << "placeholders of \"fa\" differ";
        QTest::newRow("English prose in Persian")
            << "experiments/planted.json"
            << R"({"explanation": {"en": "the update is too large", "fa": "the update is too large"}})"
            << "English words in \"fa\"";
        QTest::newRow("English beside Persian")
            << "experiments/planted.json"
            << R"({"explanation": {"en": "the model lesson", "fa": "مدل lesson"}})" << "English words in \"fa\": lesson";
        QTest::newRow("Latin digits in Persian")
            << "experiments/planted.json" << R"({"summary": {"en": "4.0000 times", "fa": "4.0000 برابر"}})"
            << "Latin digits in \"fa\": 4.0000";
        QTest::newRow("an explanation variant missing a language")
            << "experiments/planted.json"
            << R"({"explanation": {"one_rank": {"en": "A text", "fa": "متن"}, "multi_rank": {"en": "A text"}}})"
            << "/explanation/multi_rank: no text in \"fa\"";
        QTest::newRow("an explanation variant that is not a text")
            << "experiments/planted.json"
            << R"({"explanation": {"one_rank": {"en": "A text", "fa": "متن"}, "multi_rank": "A text"}})"
            << "/explanation/multi_rank: a variant that is not a text";
        QTest::newRow("an explanation of no text")
            << "experiments/planted.json" << R"({"explanation": "A text"})" << "/explanation: neither a text";
        QTest::newRow("a Markdown language missing") << "planted2.en.md" << "text" << "planted2.fa.md: no text in \"fa\"";
        QTest::newRow("Markdown placeholders differ")
            << "planted.fa.md" << "{a}" << "planted.fa.md: the placeholders of \"fa\" differ";
        QTest::newRow("not JSON") << "experiments/planted.json" << "{" << "not JSON";
    }
    void plantedFaultsAreReported()
    {
        QFETCH(QString, path);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        auto files = withFile(path.toStdString(), text.toStdString());
        if (path == QLatin1String("planted.fa.md"))
            files["planted.en.md"] = "{a} {b}";
        const QString problems = joined(validateContent(files));
        QVERIFY2(problems.contains(expected), qPrintable(QStringLiteral("expected \"%1\" in:\n%2").arg(expected, problems)));
    }

    // The lesson panel's file is checked like the rest: each fault planted in a copy of the
    // shipped lesson.json (the value at `pointer` replaced, or removed when `value` is empty).
    void lessonFaultsAreReported_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("a paragraph without Persian")
            << "/sections/0/blocks/0/text/fa" << "" << "lesson.json:/sections/0/blocks/0/text: no text in \"fa\"";
        QTest::newRow("English prose in a Persian paragraph")
            << "/sections/1/blocks/0/text/fa" << R"("`backward()` adds to the gradient")"
            << "lesson.json:/sections/1/blocks/0/text: English words in \"fa\": adds, to, the, gradient";
        QTest::newRow("Latin digits in a Persian list item")
            << "/sections/6/blocks/0/items/1/fa" << R"("گویال و همکاران، 2017")"
            << "lesson.json:/sections/6/blocks/0/items/1: Latin digits in \"fa\": 2017";
        QTest::newRow("a link text without Persian")
            << "/sections/2/links/0/text/fa" << "" << "lesson.json:/sections/2/links/0/text: no text in \"fa\"";
        QTest::newRow("the label without Persian") << "/show_me/fa" << "" << "lesson.json:/show_me: no text in \"fa\"";
        QTest::newRow("an unknown block type")
            << "/sections/1/blocks/1/type" << R"("table")" << "lesson.json:/sections/1/blocks/1: not a paragraph";
        QTest::newRow("code as a text") << "/sections/1/blocks/1/text" << R"({"en": "x"})"
                                        << "lesson.json:/sections/1/blocks/1: not a paragraph";
        QTest::newRow("a link without a target")
            << "/sections/0/links/2/target" << "" << "lesson.json:/sections/0/links/2: a link needs a target";
        QTest::newRow("no sections") << "/sections" << "" << "lesson.json: no \"sections\"";
    }
    void lessonFaultsAreReported()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        nlohmann::json lesson = contentJson("lesson.json");
        const nlohmann::json::json_pointer at(pointer.toStdString());
        QVERIFY2(lesson.contains(at), qPrintable(pointer)); // the fault lands where the lesson has text
        if (value.isEmpty())
            lesson.at(at.parent_pointer()).erase(at.back());
        else
            lesson[at] = nlohmann::json::parse(value.toStdString());
        const QString problems = joined(validateContent(withFile("lesson.json", lesson.dump())));
        QVERIFY2(problems.contains(expected), qPrintable(QStringLiteral("expected \"%1\" in:\n%2").arg(expected, problems)));
    }

    // The things a Persian text may keep in Latin script are not reported.
    void codeAndKeptTermsPass_data()
    {
        QTest::addColumn<QString>("fa");
        QTest::newRow("code span") << "پس از `backward()` هر میکروبچ";
        QTest::newRow("identifier") << "با accum_steps برابر ۴";
        QTest::newRow("dtype") << "در bfloat16 و float32";
        QTest::newRow("kept term") << "به‌روزرسانی AdamW و SGD";
        QTest::newRow("placeholder") << "نسبت {ratio:.2f}";
        QTest::newRow("member") << "بافر ‎.grad‎ پارامتر";
    }
    void codeAndKeptTermsPass()
    {
        QFETCH(QString, fa);
        const std::string en = fa.contains(QLatin1String("{ratio")) ? "ratio {ratio:.2f}" : "text";
        nlohmann::json doc = {{"t", {{"en", en}, {"fa", fa.toStdString()}}}};
        const auto problems = validateContent(withFile("experiments/planted.json", doc.dump()));
        QVERIFY2(problems.empty(), qPrintable(joined(problems)));
    }
};

QTEST_GUILESS_MAIN(TestContent)
#include "tst_content.moc"
