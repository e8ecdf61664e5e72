// KeyEncoder: the dictionary the shim codes each key column with as rows
// arrive (invariants/key_encoder.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "errors.hpp"
#include "growing_array.hpp"
#include "capi/capi_convert.hpp"
#include "invariants/key_encoder.hpp"
#include "invariants/word_array.hpp"

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
  std::uint64_t scratch;  // (keys of any length never use it)
  EXPECT_EQ(dictionary.key(0, scratch), "b");
  EXPECT_EQ(dictionary.key(1, scratch), "a");
  EXPECT_TRUE(dictionary.is_null(2));
  EXPECT_FALSE(dictionary.is_null(3));
  EXPECT_EQ(dictionary.key(3, scratch), "");
  EXPECT_EQ(dictionary.key(4, scratch), "c");
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
  std::uint64_t scratch;
  EXPECT_EQ(encoder.dictionary().key(12345, scratch), text[12345]);
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

TEST(KeyEncoder, BorrowsTheCallersBytesUntilToldWhereTheyStay) {
  // Keys coded from a scratch buffer: each new code points at the scratch
  // bytes (so a repeat within the call still matches) until keep_bytes
  // moves it to the caller's lasting copy; the scratch is then overwritten
  // and the keys code again to their first codes, from the lasting copies.
  KeyEncoder encoder = KeyEncoder::of_borrowed_bytes();
  std::string scratch = "alphabetaalpha";
  const void* data[] = {scratch.data(), scratch.data() + 5, scratch.data() + 9, nullptr};
  const std::uint32_t size[] = {5, 4, 5, 0};
  std::uint32_t codes[4];
  encoder.code(4, data, size, codes, Interrupts());
  EXPECT_EQ(std::vector<std::uint32_t>(codes, codes + 4), (std::vector<std::uint32_t>{0, 1, 0, 2}));
  EXPECT_EQ(encoder.dictionary().data[0], scratch.data());  // borrowed, not copied
  const std::string kept[] = {"alpha", "beta"};
  encoder.keep_bytes(0, kept[0].data());
  encoder.keep_bytes(1, kept[1].data());
  EXPECT_THROW(encoder.keep_bytes(2, kept[0].data()), Error);  // NULL has no bytes
  EXPECT_THROW(encoder.keep_bytes(3, kept[0].data()), Error);  // no such code
  scratch = "betaxalphaxxxx";
  const void* again[] = {scratch.data() + 5, scratch.data()};
  const std::uint32_t again_size[] = {5, 4};
  encoder.code(2, again, again_size, codes, Interrupts());
  EXPECT_EQ(codes[0], 0u);
  EXPECT_EQ(codes[1], 1u);
  std::uint64_t word_scratch;
  EXPECT_EQ(encoder.dictionary().key(0, word_scratch), "alpha");
  EXPECT_EQ(encoder.dictionary().data[1], kept[1].data());
  // A copying encoder cannot be told where its keys are.
  KeyEncoder copying;
  code_all(copying, {"x"});
  EXPECT_THROW(copying.keep_bytes(0, kept[0].data()), Error);
}

TEST(KeyEncoder, AscendingKeysNeedNoTableUntilOneIsNot) {
  // 200,000 zero-padded ids in order (GEOID-like), each twice in a row, ''
  // first and a NULL among them: new by being the greatest yet, or the
  // greatest again; no table (the keys and their pointers alone). Then keys
  // below the greatest, repeats among them: the table, built from the keys
  // kept, codes every key as first coded. Borrowed bytes are compared where
  // keep_bytes moved them (the scratch they came from is overwritten).
  std::vector<std::string> text{""};
  for (int i = 0; i < 200000; ++i) {
    std::string id = std::to_string(i);
    text.insert(text.end(), 2, std::string(10 - id.size(), '0') + id);
  }
  std::vector<std::optional<std::string>> keys(text.begin(), text.end());
  keys[1001] = std::nullopt;
  std::map<std::optional<std::string>, std::uint32_t> oracle;
  std::vector<std::string> kept;  // the lasting copies of borrowed keys
  kept.reserve(300000);
  KeyEncoder encoder = KeyEncoder::of_borrowed_bytes();
  const auto code_and_check = [&](const std::vector<std::optional<std::string>>& batch_keys) {
    for (std::size_t begin = 0; begin < batch_keys.size(); begin += 64) {
      const std::size_t end = std::min(batch_keys.size(), begin + 64);
      std::string scratch;
      for (std::size_t i = begin; i < end; ++i) scratch += batch_keys[i].value_or("");
      std::vector<const void*> data;
      std::vector<std::uint32_t> size;
      std::size_t at = 0;
      for (std::size_t i = begin; i < end; ++i) {
        data.push_back(batch_keys[i] ? scratch.data() + at : nullptr);
        size.push_back(batch_keys[i] ? static_cast<std::uint32_t>(batch_keys[i]->size()) : 0);
        at += batch_keys[i].value_or("").size();
      }
      std::vector<std::uint32_t> codes(end - begin);
      encoder.code(end - begin, data.data(), size.data(), codes.data(), Interrupts());
      for (std::size_t i = begin; i < end; ++i) {
        const auto found = oracle.emplace(batch_keys[i], static_cast<std::uint32_t>(oracle.size()));
        ASSERT_EQ(codes[i - begin], found.first->second) << "key " << i;
        if (found.second && batch_keys[i]) {
          kept.push_back(*batch_keys[i]);
          encoder.keep_bytes(codes[i - begin], kept.back().data());
        }
      }
      std::fill(scratch.begin(), scratch.end(), 'x');
    }
  };
  code_and_check(keys);
  EXPECT_TRUE(encoder.bytes_ascending());
  EXPECT_LT(encoder.bytes(), 200002u * 13u + (1u << 20));  // a pointer and a size a key, and the first table
  std::vector<std::optional<std::string>> later{std::string("0000000005"), std::string(""), std::nullopt,
                                                std::string("0000000004a"), std::string("0000199999")};
  for (int i = 0; i < 100000; ++i) later.push_back(text[1 + 2 * ((i * 7919) % 200000)]);
  code_and_check(later);
  EXPECT_FALSE(encoder.bytes_ascending());
  EXPECT_EQ(encoder.n_levels(), oracle.size());
}

// ---- Keys of 8-byte words (by-value Datums) ----

// Words as the shim passes them (a pointer to each Datum), NULL as nullopt.
std::vector<std::uint32_t> code_words(KeyEncoder& encoder, const std::vector<std::optional<std::int64_t>>& words,
                                      std::size_t max_bytes = SIZE_MAX) {
  std::vector<const void*> data;
  std::vector<std::uint32_t> size, codes(words.size());
  for (const auto& word : words) {
    data.push_back(word ? &*word : nullptr);
    size.push_back(word ? 8 : 0);
  }
  encoder.code(words.size(), data.data(), size.data(), codes.data(), Interrupts(), max_bytes);
  return codes;
}

// The codes an encoder must give, from a map: first appearance, NULL apart.
class WordOracle {
 public:
  std::uint32_t code(const std::optional<std::int64_t>& word) {
    if (!word) {
      if (!null_code_) null_code_ = n_codes_++;
      return *null_code_;
    }
    auto [it, added] = codes_.emplace(*word, n_codes_);
    n_codes_ += added;
    return it->second;
  }
  std::size_t size() const { return n_codes_; }

 private:
  std::unordered_map<std::int64_t, std::uint32_t> codes_;
  std::optional<std::uint32_t> null_code_;
  std::uint32_t n_codes_ = 0;
};

// Codes `words` in batches of 64 (as the shim does) and checks every code
// and the dictionary against the oracle.
void expect_oracle_codes(KeyEncoder& encoder, WordOracle& oracle, const std::vector<std::optional<std::int64_t>>& words) {
  for (std::size_t begin = 0; begin < words.size(); begin += 64) {
    const std::vector<std::optional<std::int64_t>> batch(words.begin() + begin,
                                                          words.begin() + std::min(words.size(), begin + 64));
    const auto codes = code_words(encoder, batch);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const std::uint32_t expected = oracle.code(batch[i]);
      ASSERT_EQ(codes[i], expected) << "word " << begin + i;
      const KeyDictionary dictionary = encoder.dictionary();
      ASSERT_EQ(dictionary.is_null(codes[i]), !batch[i].has_value());
      if (batch[i]) {
        std::uint64_t scratch;
        ASSERT_EQ(dictionary.word(codes[i]), static_cast<std::uint64_t>(*batch[i]));
        ASSERT_EQ(dictionary.key(codes[i], scratch).size(), 8u);
        ASSERT_EQ(std::memcmp(dictionary.key(codes[i], scratch).data(), &*batch[i], 8), 0);
      }
    }
  }
  ASSERT_EQ(encoder.n_levels(), oracle.size());
}

TEST(KeyEncoderWords, CodesWordsInOrderOfFirstAppearanceWithNullApartFromZero) {
  KeyEncoder encoder = KeyEncoder::of_words();
  EXPECT_EQ(code_words(encoder, {7, -1, std::nullopt, 0, 7, std::nullopt, -1, 0}),
            (std::vector<std::uint32_t>{0, 1, 2, 3, 0, 2, 1, 3}));
  const KeyDictionary dictionary = encoder.dictionary();
  ASSERT_EQ(dictionary.n_levels, 4u);
  EXPECT_TRUE(dictionary.is_null(2));
  EXPECT_FALSE(dictionary.is_null(3));
  EXPECT_EQ(static_cast<std::int64_t>(dictionary.word(1)), -1);
  EXPECT_TRUE(encoder.indexes_words());  // -1 and 0 are neighbours: one narrow range
  // A key of another width is the caller's mistake.
  const std::int32_t narrow = 1;
  const void* data[] = {&narrow};
  const std::uint32_t size[] = {4};
  std::uint32_t code;
  EXPECT_THROW(encoder.code(1, data, size, &code, Interrupts()), Error);
}

TEST(KeyEncoderWords, AscendingWordsNeedNoLookupUntilOneIsNot) {
  // Sorted ids with gaps (every third), each twice in a row, a NULL among
  // them: new by being the greatest yet, or the greatest again; no index
  // (under 12 bytes a key: the words alone). Then words below the greatest,
  // repeats and words in the gaps: the index, built from the words kept,
  // codes them as the oracle does.
  std::vector<std::optional<std::int64_t>> words;
  for (std::int64_t i = 0; i < 1000000; ++i) words.insert(words.end(), 2, -1500000 + 3 * i);
  words[1000001] = std::nullopt;
  KeyEncoder encoder = KeyEncoder::of_words();
  WordOracle oracle;
  expect_oracle_codes(encoder, oracle, words);
  EXPECT_TRUE(encoder.words_ascending());
  EXPECT_LT(encoder.bytes(), 1000000u * 12u);
  std::vector<std::optional<std::int64_t>> later{std::int64_t(3), std::int64_t(4), std::nullopt, std::int64_t(-1500000)};
  for (std::int64_t i = 0; i < 200000; ++i) later.push_back(-1500000 + 3 * i + 1);
  expect_oracle_codes(encoder, oracle, later);
  EXPECT_FALSE(encoder.words_ascending());
  EXPECT_TRUE(encoder.indexes_words());
  // Ascending words spread too wide for an index go to the hash table.
  KeyEncoder wide = KeyEncoder::of_words();
  WordOracle wide_oracle;
  expect_oracle_codes(wide, wide_oracle, {-(std::int64_t(1) << 50), 0, std::int64_t(1) << 50, 0, 7});
  EXPECT_FALSE(wide.words_ascending());
  EXPECT_FALSE(wide.indexes_words());
}

TEST(KeyEncoderWords, IndexesANarrowRangeGrowingUpAndDown) {
  // A million ids arriving in order (no lookup), then a million below them
  // in descending order (the index, grown on both sides), then all of them
  // shuffled: each keeps its first code.
  std::vector<std::optional<std::int64_t>> words;
  for (std::int64_t i = 0; i < 1000000; ++i) words.push_back(5000000000 + i);
  for (std::int64_t i = 1; i <= 1000000; ++i) words.push_back(5000000000 - i);
  KeyEncoder encoder = KeyEncoder::of_words();
  WordOracle oracle;
  expect_oracle_codes(encoder, oracle, words);
  EXPECT_TRUE(encoder.indexes_words());
  std::mt19937_64 rng(7);
  std::shuffle(words.begin(), words.end(), rng);
  expect_oracle_codes(encoder, oracle, words);
  EXPECT_TRUE(encoder.indexes_words());
  // 16 bytes a key or less: the words (8) and the index (at most 4 entries a key, 4 bytes each).
  EXPECT_LE(encoder.bytes(), 2000000u * 24u);
}

TEST(KeyEncoderWords, HashesWideSpreadsAndReturnsToTheIndexWhenTheyNarrow) {
  // Two words 2^40 apart: the index would need 2^40 entries, so the
  // encoder hashes. Then 300,000 ids between 0 and 600,000 in random order:
  // once the keys number a quarter of their spread (at a growth of the
  // table) the encoder indexes them again; the two far words stay coded.
  KeyEncoder encoder = KeyEncoder::of_words();
  WordOracle oracle;
  expect_oracle_codes(encoder, oracle, {0, std::int64_t(1) << 40, std::nullopt});
  EXPECT_FALSE(encoder.indexes_words());
  expect_oracle_codes(encoder, oracle, {std::int64_t(1) << 40, 0, std::nullopt});
  std::mt19937_64 rng(11);
  std::vector<std::optional<std::int64_t>> words;
  for (std::int64_t i = 0; i < 300000; ++i) words.push_back(static_cast<std::int64_t>(rng() % 600000));
  expect_oracle_codes(encoder, oracle, words);
  EXPECT_FALSE(encoder.indexes_words());  // 2^40 is still among the keys
  KeyEncoder narrow = KeyEncoder::of_words();
  WordOracle narrow_oracle;
  expect_oracle_codes(narrow, narrow_oracle, {0, 5000000, 2500000});  // spread 5e6 over 3 keys: hashed
  EXPECT_FALSE(narrow.indexes_words());
  words.clear();
  for (std::int64_t i = 0; i < 30000; ++i) words.push_back(static_cast<std::int64_t>(rng() % 5000001));
  expect_oracle_codes(narrow, narrow_oracle, words);  // ~30,000 keys over 5e6: still hashed
  EXPECT_FALSE(narrow.indexes_words());
  words.clear();
  for (std::int64_t i = 0; i <= 5000000; i += 3) words.push_back(i);  // 1.67M keys over 5e6: indexed
  std::shuffle(words.begin(), words.end(), rng);
  expect_oracle_codes(narrow, narrow_oracle, words);
  EXPECT_TRUE(narrow.indexes_words());
}

TEST(KeyEncoderWords, KeepsWordsAtTheEndsOfTheirRange) {
  // The least and greatest 64-bit words, and their neighbours: an index
  // placed at one end runs past it and wraps around to the other, where
  // words must still get codes of their own.
  const std::int64_t least = std::numeric_limits<std::int64_t>::min();
  const std::int64_t greatest = std::numeric_limits<std::int64_t>::max();
  for (const auto& words : std::vector<std::vector<std::optional<std::int64_t>>>{
           {greatest, greatest - 1, greatest - 3000, least, greatest - 2},
           {least, least + 1, least + 5000, greatest, least + 2, std::nullopt},
           {greatest - 10, greatest, least + 10, least, 0, -1}}) {
    KeyEncoder encoder = KeyEncoder::of_words();
    WordOracle oracle;
    expect_oracle_codes(encoder, oracle, words);
    expect_oracle_codes(encoder, oracle, std::vector<std::optional<std::int64_t>>(words.rbegin(), words.rend()));
  }
  KeyEncoder top = KeyEncoder::of_words();
  WordOracle oracle;
  std::vector<std::optional<std::int64_t>> words;
  for (std::int64_t i = 0; i < 5000; ++i) words.push_back(greatest - 2 * i);
  for (std::int64_t i = 0; i < 5000; ++i) words.push_back(greatest - 2 * i - 1);
  expect_oracle_codes(top, oracle, words);
  EXPECT_TRUE(top.indexes_words());
  for (std::int64_t i = 0; i < 5; ++i) words.push_back(least + i);  // a different code each, none aliased
  expect_oracle_codes(top, oracle, words);
}

TEST(KeyEncoderWords, RefusesToGrowPastItsLimitAndStopsWhenInterrupted) {
  std::vector<std::optional<std::int64_t>> words;  // 8 bytes each (over 2^31)
  for (std::int64_t i = 0; i < 2000000; ++i) words.push_back((std::int64_t(1) << 40) + i * 3);
  const std::size_t limit = 8u << 20;
  KeyEncoder encoder = KeyEncoder::of_words();
  std::size_t coded = 0;
  try {
    for (; coded < words.size(); coded += 64) {
      code_words(encoder, {words.begin() + coded, words.begin() + coded + 64}, limit);
      ASSERT_LE(encoder.bytes(), limit);
    }
    FAIL() << "2M words fit in 8 MB";
  } catch (const TooLarge&) {
  }
  EXPECT_LE(encoder.bytes(), limit);
  EXPECT_GT(coded, 100000u);
  // Widening the index, or moving between index and table, polls too.
  std::vector<const void*> data;
  std::vector<std::uint32_t> size(words.size(), 8), codes(words.size());
  std::vector<std::int64_t> spread;
  for (std::int64_t i = 0; i < 2000000; ++i) spread.push_back(i % 2 ? -i * 7 : i * 7);  // down and up by turns
  for (const std::int64_t& word : spread) data.push_back(&word);
  int polls = 0;
  const Interrupts cancel([](void* n) { return ++*static_cast<int*>(n) > 40; }, &polls);
  KeyEncoder interrupted = KeyEncoder::of_words();
  EXPECT_THROW(interrupted.code(spread.size(), data.data(), size.data(), codes.data(), cancel), Interrupted);
}

TEST(WordArray, NarrowWordsAreExactlyTheSignExtendedOnes) {
  // A word is kept in 4 bytes only if it reads back as the same 8: the
  // Datum of an int4 (sign-extended), not a zero-extended 32-bit pattern.
  for (const std::int64_t fits : {std::int64_t(0), std::int64_t(-1), std::int64_t(INT32_MIN), std::int64_t(INT32_MAX)})
    EXPECT_TRUE(WordArray::fits_narrow(static_cast<std::uint64_t>(fits))) << fits;
  for (const std::int64_t wide : {std::int64_t(INT32_MAX) + 1, std::int64_t(INT32_MIN) - 1, std::int64_t(0xffffffffll),
                                  std::int64_t(1) << 40, INT64_MIN, INT64_MAX})
    EXPECT_FALSE(WordArray::fits_narrow(static_cast<std::uint64_t>(wide))) << wide;
}

TEST(KeyEncoderWords, KeepsWordsInFourBytesUntilOneNeedsEight) {
  // A million ascending int4-like words, negatives, a NULL and INT32_MAX
  // among them: 4 bytes a word (narrow_words), read back as the same 8
  // bytes. Then 2^31 arrives: every word is widened once, codes unchanged.
  std::vector<std::optional<std::int64_t>> words;
  for (std::int64_t i = 0; i < 1000000; ++i) words.push_back(-500000 + i);
  words[7] = std::nullopt;
  words.push_back(std::int64_t(INT32_MAX));
  KeyEncoder encoder = KeyEncoder::of_words();
  WordOracle oracle;
  expect_oracle_codes(encoder, oracle, words);
  ASSERT_NE(encoder.dictionary().narrow_words, nullptr);
  EXPECT_EQ(encoder.dictionary().words, nullptr);
  EXPECT_LT(encoder.bytes(), 1000001u * 4u + (1u << 20));  // the words alone, 4 bytes each
  // Widening is refused under a limit it would pass, before allocating;
  // the dictionary stays whole and narrow.
  const std::size_t held = encoder.bytes();
  std::vector<std::uint32_t> codes(1);
  const std::uint64_t two_to_31 = std::uint64_t(1) << 31;
  const bool no_null = false;
  EXPECT_THROW(encoder.code(1, &two_to_31, &no_null, codes.data(), Interrupts(), held + (1u << 20)), TooLarge);
  EXPECT_EQ(encoder.bytes(), held);
  EXPECT_NE(encoder.dictionary().narrow_words, nullptr);
  // With room: widened, every earlier word and code as before.
  expect_oracle_codes(encoder, oracle, {std::int64_t(two_to_31)});
  ASSERT_NE(encoder.dictionary().words, nullptr);
  EXPECT_EQ(encoder.dictionary().narrow_words, nullptr);
  expect_oracle_codes(encoder, oracle, words);
  // The C boundary's view reads the same words either way.
  KeyEncoder narrow = KeyEncoder::of_words();
  WordOracle narrow_oracle;
  expect_oracle_codes(narrow, narrow_oracle,
                      {std::int64_t(-3), std::nullopt, std::int64_t(5), std::int64_t(INT32_MIN)});
  const idp_key_dictionary c = capi::c_dictionary(narrow.dictionary());
  ASSERT_NE(c.narrow_words, nullptr);
  EXPECT_EQ(static_cast<std::int64_t>(idp_key_word(&c, 0)), -3);
  EXPECT_TRUE(idp_key_is_null(&c, 1));
  EXPECT_EQ(idp_key_word(&c, 2), 5u);
  EXPECT_EQ(static_cast<std::int64_t>(idp_key_word(&c, 3)), std::int64_t(INT32_MIN));
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
