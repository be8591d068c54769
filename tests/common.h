// Shared helpers for AccumLab's Qt Test suites: fuzzy comparisons and temp folders.
#pragma once

#include <QString>
#include <QtTest>

#include <cmath>

namespace accumlab::test {

// QVERIFY-friendly relative comparison with a message naming both values.
#define ACCUMLAB_COMPARE_REL(actual, expected, rel)                                                        \
    QVERIFY2(std::abs((actual) - (expected)) <= (rel) * std::abs(expected),                                \
             qPrintable(QStringLiteral("%1 = %2, expected %3 within %4 relative")                          \
                            .arg(QStringLiteral(#actual))                                                   \
                            .arg(double(actual), 0, 'g', 10)                                                \
                            .arg(double(expected), 0, 'g', 10)                                              \
                            .arg(double(rel))))

#define ACCUMLAB_VERIFY_BELOW(actual, bound)                                                               \
    QVERIFY2((actual) < (bound), qPrintable(QStringLiteral("%1 = %2 is not below %3")                      \
                                                .arg(QStringLiteral(#actual))                               \
                                                .arg(double(actual), 0, 'g', 6)                             \
                                                .arg(double(bound), 0, 'g', 6)))

} // namespace accumlab::test
