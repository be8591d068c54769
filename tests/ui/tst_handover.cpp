// Handover (ui/worker/handover.h), the window's one way across a thread: calls posted from any number
// of threads run in the Handover's own thread, each poster's in the order posted; calls still
// queued when it is deleted never run and their captured values are released; a call that
// opens a nested event loop lets the later ones run inside it, in order. The scripted
// sanitizer stage (scripts/sanitize.sh tsan) runs this test under ThreadSanitizer, with no
// suppression: a hand-over it could not see would fail it there.
#include "ui/worker/handover.h"

#include <QEventLoop>
#include <QTest>
#include <QThread>

#include <atomic>
#include <future>
#include <memory>
#include <thread>
#include <vector>

using namespace accumlab::ui;

class TestHandover : public QObject {
    Q_OBJECT
private slots:
    void runsInItsThreadInOrder_data()
    {
        QTest::addColumn<int>("posters");
        QTest::addColumn<int>("callsEach");
        QTest::newRow("one poster, one call") << 1 << 1;
        QTest::newRow("one poster, 2000 calls") << 1 << 2000;
        QTest::newRow("four posters, 500 calls each") << 4 << 500;
    }
    void runsInItsThreadInOrder()
    {
        QFETCH(int, posters);
        QFETCH(int, callsEach);
        QThread thread;
        auto *handover = new Handover;
        handover->moveToThread(&thread);
        connect(&thread, &QThread::finished, handover, &QObject::deleteLater);
        thread.start();

        // Filled only by calls, in the Handover's thread; read here after `done`.
        struct Seen {
            std::vector<std::vector<int>> byPoster;
            int wrongThread = 0;
        };
        auto seen = std::make_shared<Seen>();
        seen->byPoster.resize(posters);
        std::vector<std::thread> threads;
        for (int p = 0; p < posters; ++p)
            threads.emplace_back([=, target = &thread] {
                for (int i = 0; i < callsEach; ++i)
                    // A value written here, read there: a vector the call owns.
                    handover->post([seen, p, target, payload = std::vector<int>(8, i)] {
                        if (QThread::currentThread() != target)
                            ++seen->wrongThread;
                        seen->byPoster[p].push_back(payload.back());
                    });
            });
        for (std::thread &t : threads)
            t.join();
        std::promise<void> done;
        handover->post([&done] { done.set_value(); });
        QCOMPARE(done.get_future().wait_for(std::chrono::seconds(60)), std::future_status::ready);
        thread.quit();
        QVERIFY(thread.wait(10000));

        QCOMPARE(seen->wrongThread, 0);
        for (int p = 0; p < posters; ++p) {
            QCOMPARE(int(seen->byPoster[p].size()), callsEach);
            for (int i = 0; i < callsEach; ++i)
                QCOMPARE(seen->byPoster[p][i], i);
        }
    }

    // Deleted with calls queued: none runs, and what they captured is released.
    void dropsWhatItDidNotRun()
    {
        auto captured = std::make_shared<int>(0);
        bool ran = false;
        {
            Handover handover;
            for (int i = 0; i < 3; ++i)
                handover.post([captured, &ran] { ran = true; });
            QCOMPARE(captured.use_count(), 4L);
        }
        QCoreApplication::processEvents(); // the three wake-ups find no receiver
        QVERIFY(!ran);
        QCOMPARE(captured.use_count(), 1L);
    }

    // A call that opens a nested event loop (as a dialog does): the calls posted after it run
    // inside that loop, in the order posted, before it returns.
    void nestedLoopKeepsTheOrder()
    {
        Handover handover;
        QStringList order;
        handover.post([&] {
            order << QStringLiteral("A begins");
            QEventLoop loop;
            handover.post([&] { order << QStringLiteral("B"); });
            handover.post([&] {
                order << QStringLiteral("C");
                loop.quit();
            });
            loop.exec();
            order << QStringLiteral("A ends");
        });
        handover.post([&] { order << QStringLiteral("D"); });
        QTRY_COMPARE(order.size(), 5);
        QCOMPARE(order, QStringList({"A begins", "D", "B", "C", "A ends"}));
    }
};

QTEST_GUILESS_MAIN(TestHandover)
#include "tst_handover.moc"
