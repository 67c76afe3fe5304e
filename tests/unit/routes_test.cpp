#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/route_gen.h"
#include "engine/routes.h"

using namespace pathscope::engine;

TEST(Routes, GeneratedTableHasTheShapeOfABgpView) {
    const auto routes = generate_routes(40000, 1);
    ASSERT_EQ(routes.size(), 40000u);
    std::map<int, unsigned> by_len;
    for (const auto& r : routes) {
        ++by_len[r.len];
        EXPECT_EQ(r.addr[0] & 0xe0, 0x20) << "outside 2000::/3";
        for (int bit = r.len; bit < 128; ++bit)
            ASSERT_EQ(r.addr[bit / 8] & (0x80 >> (bit % 8)), 0) << "host bits set";
    }
    // /48 is the most common, then /32; together most of the table.
    EXPECT_GT(by_len[48], 40000u * 40 / 100);
    EXPECT_GT(by_len[32], 40000u * 9 / 100);
    EXPECT_GT(by_len[48], by_len[32]);
    EXPECT_GT(by_len[32], by_len[44]);
    EXPECT_GT(by_len[44], by_len[40]);
    EXPECT_GT(by_len[40], by_len[36]);
    // Same seed, same table; the sample file is this table.
    EXPECT_EQ(generate_routes(100, 1)[99].addr, generate_routes(100, 1)[99].addr);
    const auto sample =
        read_route_file(std::string(PATHSCOPE_SOURCE_DIR) + "/samples/routes-40k.txt", 0);
    ASSERT_EQ(sample.size(), routes.size());
    EXPECT_EQ(format_prefix6(sample[123].prefix), format_prefix6(routes[123]));
}

TEST(Routes, RouteFileErrorsNameFileAndLine) {
    const std::string path = testing::TempDir() + "/bad_routes.txt";
    {
        std::ofstream f(path);
        f << "# comment\n2001:db8::/32 1\n\n2001:db8:zz::/48 2\n";
    }
    try {
        read_route_file(path, 0);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path + ":4:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("the line starts \"2001:db8:zz:...\""),
                  std::string::npos)
            << e.what();
    }
    {
        std::ofstream f(path);
        f << "2001:db8::/32\n";
    }
    EXPECT_THROW(read_route_file(path, 0), std::runtime_error);  // no next hop anywhere
    EXPECT_EQ(read_route_file(path, 5).at(0).nexthop, 5u);
}

// A scenario may name any file as its route file; an error shows the line's
// first characters, enough to find it, and no more of the file.
TEST(Routes, RouteFileErrorsQuoteOnlyTheStartOfTheLine) {
    const std::string path = testing::TempDir() + "/not_routes.txt";
    const std::string secret = "root:$6$saltsalt$hashhashhashhashhash:19000:0:99999:7:::";
    for (const std::string& line : {secret, "2001:db8::/32 1 " + secret, "2001:db8::/32 " + secret,
                                    std::string("\x1b[31mred\x07 2001:db8:dead::/32")}) {
        {
            std::ofstream f(path);
            f << line << "\n";
        }
        try {
            read_route_file(path, 1);
            FAIL() << "expected an error for " << line;
        } catch (const std::runtime_error& e) {
            const std::string what = e.what();
            std::string start = line.substr(0, 12);
            for (char& c : start)
                if (c < 0x20 || c == 0x7f) c = '?';  // a terminal control is not shown as it is
            EXPECT_NE(what.find("the line starts \"" + start + "...\""), std::string::npos) << what;
            EXPECT_EQ(what.find(line.substr(12, 8)), std::string::npos) << what;
            EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
        }
    }
}

TEST(Routes, PrefixParsing) {
    EXPECT_FALSE(parse_prefix6("2001:db8::/129"));
    EXPECT_FALSE(parse_prefix6("2001:db8::/"));
    EXPECT_FALSE(parse_prefix6("10.0.0.0/8"));
    EXPECT_EQ(format_prefix6(*parse_prefix6("2001:db8:ffff::1/36")), "2001:db8:f000::/36");
    EXPECT_TRUE(parse_mac("02:00:00:00:00:01"));
    EXPECT_FALSE(parse_mac("02:00:00:00:00"));
}
