// KeyEncoder: the dictionary the shim codes each key column with as rows
// arrive (invariants/key_encoder.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "errors.hpp"
#include "growing_array.hpp"
#include "invariants/key_encoder.hpp"

namespace invariant_dp {
namespace {

std::vector<std::uint32_t> code_all(KeyEncoder& encoder, const std::vector<const char*>& keys) {
  std::vector<const void*> data(keys.begin(), keys.end());
  std::vector<std::uint32_t> size, codes(keys.size());
  for (const char* key : keys) size.push_back(key ? static_cast<std::uint32_t>(std::string(key).size()) : 0);
  encoder.code(keys.size(), data.data(), size.data(), codes.data(), Interrupts());
  return codes;
}

TEST(KeyEncoder, CodesKeysInOrderOfFirstAppearanceWithNullAndEmptyApart) {
  KeyEncoder encoder;
  EXPECT_EQ(code_all(encoder, {"b", "a", nullptr, "b", "", nullptr, "a", ""}),
            (std::vector<std::uint32_t>{0, 1, 2, 0, 3, 2, 1, 3}));
  // A later batch continues the same dictionary.
  EXPECT_EQ(code_all(encoder, {"", "c", "b"}), (std::vector<std::uint32_t>{3, 4, 0}));
  const KeyDictionary dictionary = encoder.dictionary();
  ASSERT_EQ(dictionary.n_levels, 5u);
  EXPECT_EQ(dictionary.key(0), "b");
  EXPECT_EQ(dictionary.key(1), "a");
  EXPECT_TRUE(dictionary.is_null(2));
  EXPECT_FALSE(dictionary.is_null(3));
  EXPECT_EQ(dictionary.key(3), "");
  EXPECT_EQ(dictionary.key(4), "c");
}

TEST(KeyEncoder, KeepsEveryCodeAcrossGrowthAndCopiesTheKeys) {
  // 300,000 distinct keys grow the table ten times; coding them again in
  // another order must give each its first code, from the copied bytes.
  constexpr std::uint32_t kKeys = 300000;
  std::vector<std::string> text;
  for (std::uint32_t i = 0; i < kKeys; ++i) text.push_back("key-" + std::to_string(i * 7919u));
  KeyEncoder encoder;
  {
    std::vector<std::string> copies = text;  // freed before the second pass
    std::vector<const char*> keys;
    for (const std::string& t : copies) keys.push_back(t.c_str());
    const auto codes = code_all(encoder, keys);
    for (std::uint32_t i = 0; i < kKeys; ++i) ASSERT_EQ(codes[i], i);
  }
  std::vector<const char*> reversed;
  for (std::uint32_t i = kKeys; i-- > 0;) reversed.push_back(text[i].c_str());
  const auto codes = code_all(encoder, reversed);
  for (std::uint32_t i = 0; i < kKeys; ++i) ASSERT_EQ(codes[i], kKeys - 1 - i);
  ASSERT_EQ(encoder.n_levels(), kKeys);
  EXPECT_EQ(encoder.dictionary().key(12345), text[12345]);
  EXPECT_GT(encoder.bytes(), kKeys * (sizeof(void*) + sizeof(std::uint32_t) + sizeof(std::uint64_t)));
}

TEST(KeyEncoder, StopsWhenInterruptedWhileGrowing) {
  // 200,000 distinct keys in one call: the interrupt, pending from the
  // second poll on, stops the coding (between batches or in a rehash).
  std::vector<std::string> text;
  for (int i = 0; i < 200000; ++i) text.push_back(std::to_string(i));
  std::vector<const void*> data;
  std::vector<std::uint32_t> size, codes(text.size());
  for (const std::string& t : text) {
    data.push_back(t.data());
    size.push_back(static_cast<std::uint32_t>(t.size()));
  }
  int polls = 0;
  const Interrupts cancel([](void* n) { return ++*static_cast<int*>(n) > 1; }, &polls);
  KeyEncoder encoder;
  EXPECT_THROW(encoder.code(text.size(), data.data(), size.data(), codes.data(), cancel), Interrupted);
  EXPECT_GT(polls, 1);
}

TEST(KeyEncoder, RefusesToGrowPastItsLimitBeforeAllocating) {
  // Coding distinct keys a batch at a time under a limit: the encoder
  // refuses (TooLarge) before a growth that would pass it, so it never
  // holds more than the limit; keys it already has still code under it.
  std::vector<std::string> text;
  for (int i = 0; i < 300000; ++i) text.push_back("key " + std::to_string(i));
  std::vector<const void*> data;
  std::vector<std::uint32_t> size;
  for (const std::string& t : text) {
    data.push_back(t.data());
    size.push_back(static_cast<std::uint32_t>(t.size()));
  }
  const std::size_t limit = 4u << 20;
  KeyEncoder encoder;
  std::vector<std::uint32_t> codes(64);
  std::size_t coded = 0;
  try {
    for (; coded < text.size(); coded += 64) {
      encoder.code(64, data.data() + coded, size.data() + coded, codes.data(), Interrupts(), limit);
      ASSERT_LE(encoder.bytes(), limit);
    }
    FAIL() << "300,000 keys fit in 4 MB";
  } catch (const TooLarge&) {
  }
  EXPECT_LE(encoder.bytes(), limit);
  EXPECT_GT(coded, 10000u);  // it refused a growth, not the first keys
  EXPECT_GT(encoder.bytes(), limit / 4);  // and only near the limit
  // A refusal leaves the dictionary whole: with room, coding goes on.
  encoder.code(64, data.data() + coded, size.data() + coded, codes.data(), Interrupts());
  encoder.code(1, data.data(), size.data(), codes.data(), Interrupts());
  EXPECT_EQ(codes[0], 0u);
}

TEST(KeyEncoder, TellsApartKeysThatShareAHashPrefix) {
  // Keys that differ only after their first 8 bytes, and binary keys with
  // zero bytes: equal only when every byte is.
  KeyEncoder encoder;
  const char a[] = {'x', 0, 0, 0, 0, 0, 0, 0, 1};
  const char b[] = {'x', 0, 0, 0, 0, 0, 0, 0, 2};
  const void* data[] = {a, b, a, a};
  const std::uint32_t size[] = {9, 9, 8, 9};
  std::uint32_t codes[4];
  encoder.code(4, data, size, codes, Interrupts());
  EXPECT_EQ(codes[0], 0u);
  EXPECT_EQ(codes[1], 1u);
  EXPECT_EQ(codes[2], 2u);
  EXPECT_EQ(codes[3], 0u);
}

}  // namespace
}  // namespace invariant_dp

namespace invariant_dp {
namespace {

TEST(GrowingArray, KeepsItsElementsWhileGrowingPastHugePages) {
  // 20M elements (80 MB) pushed one by one: the mapping grows by mremap
  // through every size from 64 kB, across whole 2 MB pages.
  GrowingArray<std::uint32_t> array;
  constexpr std::uint32_t kN = 20000000;
  for (std::uint32_t i = 0; i < kN; ++i) array.push_back(i * 2654435761u);
  ASSERT_EQ(array.size(), std::size_t(kN));
  for (std::uint32_t i = 0; i < kN; i += 9973) ASSERT_EQ(array[i], i * 2654435761u);
  EXPECT_EQ(array[kN - 1], (kN - 1) * 2654435761u);
  EXPECT_GE(array.bytes(), kN * sizeof(std::uint32_t));
  GrowingArray<std::uint32_t> moved = std::move(array);
  EXPECT_EQ(moved[kN - 1], (kN - 1) * 2654435761u);
  EXPECT_EQ(array.size(), 0u);
}

}  // namespace
}  // namespace invariant_dp
