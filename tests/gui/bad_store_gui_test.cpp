// The desktop program given a file that is not a store it can use (cut
// short, random bytes, another application's SQLite file, a newer schema),
// as `pathscope-gui FILE` or File > Open gives it: the store reader refuses
// it with the same one message as the command line, the window shows that
// message and keeps no part of the file, and the file is not written to.
// Offscreen Qt; a gtest case per kind of file.
#include <gtest/gtest.h>

#include <QApplication>
#include <QStatusBar>
#include <filesystem>

#include "db/schema.h"
#include "gui/main_window.h"
#include "gui/run_loader.h"
#include "tests/support/bad_stores.h"
#include "tests/support/profile_store.h"
#include "tests/support/temp_dir.h"

using namespace pathscope;
namespace fs = std::filesystem;

namespace {

class BadStoreGuiTest : public ::testing::TestWithParam<test::BadStoreKind> {
  protected:
    test::TempDir tmp_{"badgui"};
};

TEST_P(BadStoreGuiTest, TheLoaderAndTheWindowRefuseItClearly) {
    const test::BadStoreKind& kind = GetParam();
    const std::string good = tmp_.file("good.db");
    test::write_profile_store(good, "good", 2000, 2);
    ASSERT_TRUE(gui::list_store(good).error.isEmpty());
    const std::string bad = tmp_.file(std::string(kind.name) + ".db");
    test::make_bad_store(kind.kind, good, bad);
    const std::string bytes = test::file_bytes(bad);

    // The reader (its thread's code, called here) refuses it with the store's message.
    const gui::StoreListing listing = gui::list_store(bad);
    const std::string error = listing.error.toStdString();
    EXPECT_EQ(error.rfind(bad + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(kind.reason), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_TRUE(listing.runs.empty());

    // The window shows that message and keeps the store it had.
    gui::MainWindow w;
    ASSERT_TRUE(w.open_store(QString::fromStdString(good)).isEmpty());
    const QString title = w.windowTitle();
    const QString shown = w.open_store(QString::fromStdString(bad));
    EXPECT_EQ(shown, listing.error);
    EXPECT_EQ(w.statusBar()->currentMessage(), listing.error);
    EXPECT_EQ(w.windowTitle(), title) << "the window switched to the refused file";
    EXPECT_TRUE(w.select_run("good")) << "the open store's runs are gone";

    EXPECT_TRUE(test::file_bytes(bad) == bytes) << "the refused file was written to";
}

INSTANTIATE_TEST_SUITE_P(Files, BadStoreGuiTest, ::testing::ValuesIn(test::kBadStores),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace

int main(int argc, char** argv) {
    // No display here or in CI: the offscreen platform, unless one is chosen.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    ::testing::InitGoogleTest(&argc, argv);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("pathscope-tests"));  // its recent-files list
    return RUN_ALL_TESTS();
}
