#include "common/histogram.h"

#include <gtest/gtest.h>

#include <random>

using namespace pathscope::analysis;

TEST(Histogram, BucketLayoutIsContiguousAndTight) {
    for (unsigned i = 0; i + 1 < kBucketCount; ++i) {
        ASSERT_EQ(bucket_upper(i) + 1, bucket_lower(i + 1)) << i;
        ASSERT_EQ(bucket_index(bucket_lower(i)), i);
        ASSERT_EQ(bucket_index(bucket_upper(i)), i);
    }
    // Relative width at most 1/16 above the exact range.
    for (uint64_t v : {17ull, 1000ull, 123456ull, 1ull << 40}) {
        const unsigned b = bucket_index(v);
        EXPECT_LE(static_cast<double>(bucket_upper(b) - bucket_lower(b) + 1) /
                      static_cast<double>(bucket_lower(b)),
                  1.0 / 16 + 1e-12);
    }
}

TEST(Histogram, ExactMinMaxAndPercentilesWithinABucket) {
    Histogram h;
    for (uint64_t v = 1; v <= 1000; ++v) h.add(v);
    EXPECT_EQ(h.count(), 1000u);
    EXPECT_EQ(h.min(), 1u);
    EXPECT_EQ(h.max(), 1000u);
    EXPECT_DOUBLE_EQ(h.mean(), 500.5);
    // True percentiles are 500, 900, 990; a bucket is at most 1/16 wide.
    EXPECT_NEAR(h.percentile(50), 500, 500.0 / 16);
    EXPECT_NEAR(h.percentile(90), 900, 900.0 / 16);
    EXPECT_NEAR(h.percentile(99), 990, 990.0 / 16);
    EXPECT_EQ(h.percentile(100), 1000);
    EXPECT_EQ(h.percentile(0), 1);
    // MAD of 1..1000 is 250.
    EXPECT_NEAR(h.mad(), 250, 250.0 / 8);
}

TEST(Histogram, MergeEqualsAddingEverything) {
    std::mt19937_64 rng(7);
    Histogram a, b, all;
    for (int i = 0; i < 10000; ++i) {
        const uint64_t v = rng() % 100000;
        (i % 2 ? a : b).add(v);
        all.add(v);
    }
    a.merge(b);
    EXPECT_EQ(a.counts(), all.counts());
    EXPECT_EQ(a.min(), all.min());
    EXPECT_EQ(a.max(), all.max());
    EXPECT_EQ(a.sum(), all.sum());
    EXPECT_EQ(a.percentile(95), all.percentile(95));
}

TEST(Histogram, TextRenderingShowsSummaryAndRows) {
    Histogram h;
    for (int i = 0; i < 627; ++i) h.add(544 + static_cast<uint64_t>(i) * 17);
    const std::string t = render_text(h, "cycles", 8);
    EXPECT_NE(t.find("min=544 "), std::string::npos) << t;
    EXPECT_NE(t.find("count=627 "), std::string::npos) << t;
    EXPECT_NE(t.find("(cycles)"), std::string::npos);
    // Summary, header and at most 8 rows, each within 80 columns.
    size_t lines = 0, pos = 0, prev = 0;
    while ((pos = t.find('\n', prev)) != std::string::npos) {
        EXPECT_LE(pos - prev, 100u);
        prev = pos + 1;
        ++lines;
    }
    EXPECT_LE(lines, 10u);
    EXPECT_GE(lines, 4u);
}

TEST(Histogram, EmptyIsHarmless) {
    Histogram h;
    EXPECT_EQ(h.percentile(50), 0);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_NE(render_text(h, "cycles").find("count=0"), std::string::npos);
}
