// The key encoder's C entry points (invariant_dp_core.h): the shim codes
// each key column with a KeyEncoder as its rows arrive.
#include "../invariants/key_encoder.hpp"
#include "capi_convert.hpp"
#include "capi_guard.hpp"

struct idp_key_encoder {
  invariant_dp::KeyEncoder encoder;
};

extern "C" {

idp_key_encoder* idp_key_encoder_new(void) {
  try {
    return new idp_key_encoder();
  } catch (...) {
    return nullptr;
  }
}

idp_key_encoder* idp_key_encoder_new_words(void) {
  try {
    return new idp_key_encoder{invariant_dp::KeyEncoder::of_words()};
  } catch (...) {
    return nullptr;
  }
}

idp_key_encoder* idp_key_encoder_new_borrowing(void) {
  try {
    return new idp_key_encoder{invariant_dp::KeyEncoder::of_borrowed_bytes()};
  } catch (...) {
    return nullptr;
  }
}

idp_status idp_key_encoder_keep_bytes(idp_key_encoder* encoder, uint32_t code, const void* data, idp_error* error) {
  return invariant_dp::guarded(error, [&] { encoder->encoder.keep_bytes(code, data); });
}

idp_status idp_key_encode(idp_key_encoder* encoder, size_t n, const void* const* data, const uint32_t* size,
                          uint32_t* codes, const idp_interrupts* interrupts, size_t max_bytes, idp_error* error) {
  return invariant_dp::guarded(error, [&] {
    encoder->encoder.code(n, data, size, codes, invariant_dp::capi::interrupts_of(interrupts), max_bytes);
  });
}

idp_status idp_key_encode_words(idp_key_encoder* encoder, size_t n, const uint64_t* words, const bool* nulls,
                                uint32_t* codes, const idp_interrupts* interrupts, size_t max_bytes, idp_error* error) {
  return invariant_dp::guarded(error, [&] {
    encoder->encoder.code(n, words, nulls, codes, invariant_dp::capi::interrupts_of(interrupts), max_bytes);
  });
}

idp_key_dictionary idp_key_encoder_dictionary(const idp_key_encoder* encoder) {
  return invariant_dp::capi::c_dictionary(encoder->encoder.dictionary());
}

size_t idp_key_encoder_bytes(const idp_key_encoder* encoder) { return encoder->encoder.bytes(); }

void idp_key_encoder_free(idp_key_encoder* encoder) { delete encoder; }

}  // extern "C"
