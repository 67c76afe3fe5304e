// The window's store session: the store reader on a thread of its own, the
// loads asked of it (each with a generation, so that a stale answer is
// dropped and a newer ask stops an older load inside its queries), Cancel,
// the live view's polls, and a wait for the newest answer. MainWindow builds
// and wires the widgets; every read of the store goes through here.
#pragma once

#include <QObject>
#include <QThread>
#include <functional>
#include <string>

#include "gui/run_loader.h"

namespace pathscope::gui {

class RunSession : public QObject {
    Q_OBJECT
  public:
    explicit RunSession(QObject* parent = nullptr);
    ~RunSession() override;

    /// Opens the store at `path` (a file or a server URL) on the reader's
    /// thread, stopping any load of the store being left; the caller waits,
    /// its window drawn but taking no input. The store stays open when the
    /// listing has no error.
    StoreListing open(const QString& path);
    /// The open store ("" before one is).
    const std::string& path() const { return path_; }
    /// Asks for run `id`, compared against `base` unless it is 0; a load
    /// still under way stops. The answer comes as loaded().
    void load(int64_t base, int64_t id);
    /// Stops the load under way; it is answered (by nothing).
    void cancel();
    /// Whether the newest ask has been answered: shown, failed or cancelled.
    bool answered() const { return answered_ == generation_ && !views_asked_; }
    /// Processes events until the newest ask is answered.
    void wait_until_answered();
    /// Live view: the reader polls the store every `ms` (0 stops).
    void set_live(int ms);
    /// One poll now (the caller waits): whether the store had changed.
    bool poll();
    /// Whether a call view is on screen: a live update computes the call
    /// views only then.
    void show_call_views(bool shown) { reader_->show_call_views(shown); }
    /// The call views a load or live update left out, of the run it showed:
    /// they come as call_views_added (answered() waits for them).
    void add_call_views();

  signals:
    /// The newest ask's answer (a stale one is never passed on).
    void loaded(const LoadedRun& run);
    void call_views_added(const analysis::CallViews& views);
    void runs_changed(const StoreListing& changes);
    /// A live poll could not read the store (why), or reads it again ("").
    void poll_failed(const QString& error);

  private:
    /// Runs `work` on the reader's thread and waits for it, taking no input.
    void on_reader(const std::function<void()>& work);
    void answer(const LoadedRun& run);

    std::string path_;
    QThread thread_;
    StoreReader* reader_;
    unsigned generation_ = 0;  ///< of the newest ask
    unsigned answered_ = 0;    ///< of the newest ask answered
    int views_asked_ = 0;      ///< add_call_views asked and not answered
};

}  // namespace pathscope::gui
