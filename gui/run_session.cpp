#include "gui/run_session.h"

#include <QCoreApplication>
#include <QEventLoop>

namespace pathscope::gui {

RunSession::RunSession(QObject* parent) : QObject(parent), reader_(new StoreReader) {
    reader_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, reader_, &QObject::deleteLater);
    connect(reader_, &StoreReader::loaded, this, &RunSession::answer);
    connect(reader_, &StoreReader::runs_changed, this, &RunSession::runs_changed);
    connect(reader_, &StoreReader::cancelled, this, [this](unsigned generation) {
        if (generation == generation_) answered_ = generation;
    });
    connect(reader_, &StoreReader::poll_failed, this, &RunSession::poll_failed);
    connect(reader_, &StoreReader::call_views_added, this,
            [this](unsigned generation, const analysis::CallViews& views) {
                --views_asked_;
                if (generation == generation_) emit call_views_added(views);
            });
    thread_.setObjectName(QStringLiteral("store reader"));
    thread_.start();
}

RunSession::~RunSession() {
    reader_->want(~0u);  // whatever it reads stops
    thread_.quit();
    thread_.wait();
}

StoreListing RunSession::open(const QString& path) {
    cancel();  // a load of the store being left stops
    StoreListing listing;
    on_reader([&] { listing = reader_->open(path); });
    if (listing.error.isEmpty()) path_ = path.toStdString();
    return listing;
}

void RunSession::load(int64_t base, int64_t id) {
    const unsigned generation = ++generation_;
    reader_->want(generation);  // an older load still running stops
    QMetaObject::invokeMethod(reader_, [reader = reader_, generation, base, id] {
        reader->load(generation, base, id);
    });
}

void RunSession::cancel() {
    reader_->want(++generation_);
    answered_ = generation_;
}

void RunSession::answer(const LoadedRun& run) {
    if (run.generation != generation_) return;  // a newer ask is on its way, or cancelled
    answered_ = run.generation;
    emit loaded(run);
}

void RunSession::wait_until_answered() {
    // What the reader sent before now is in the event queue; a load still
    // under way answers later.
    QCoreApplication::processEvents();
    while (!answered())  // sleeps until the reader's answer (an event) comes
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
}

void RunSession::set_live(int ms) {
    QMetaObject::invokeMethod(reader_, [reader = reader_, ms] { reader->set_poll(ms); });
}

bool RunSession::poll() {
    bool changed = false;
    on_reader([&] { changed = reader_->poll(); });
    return changed;
}

void RunSession::add_call_views() {
    ++views_asked_;
    QMetaObject::invokeMethod(reader_, [reader = reader_, generation = generation_] {
        reader->add_call_views(generation);
    });
}

void RunSession::on_reader(const std::function<void()>& work) {
    QEventLoop wait;
    QMetaObject::invokeMethod(reader_, [&] {
        work();
        QMetaObject::invokeMethod(&wait, &QEventLoop::quit, Qt::QueuedConnection);
    });
    wait.exec(QEventLoop::ExcludeUserInputEvents);
}

}  // namespace pathscope::gui
