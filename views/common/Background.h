// Work off the GUI thread: a job runs on Qt's thread pool and its result comes back to the GUI
// thread, to a callback that lives no longer than its owner.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>

#include <type_traits>
#include <utility>

namespace portolan::views {

/// Runs `job` on a worker thread and hands its result to `done` on `owner`'s thread (not at all
/// when `owner` is gone by then).
template <typename Job, typename Done>
void runInBackground(QObject *owner, Job job, Done done)
{
    using Result = std::invoke_result_t<Job>;
    auto *watcher = new QFutureWatcher<Result>(owner);
    QObject::connect(watcher, &QFutureWatcher<Result>::finished, owner, [watcher, done = std::move(done)] {
        done(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(std::move(job)));
}

} // namespace portolan::views
