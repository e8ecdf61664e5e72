// Implementation of guarded(): one table from exception type to status.
#pragma once

#include <new>
#include <stdexcept>

#include "../errors.hpp"

namespace invariant_dp {

template <typename Body>
idp_status guarded(idp_error* error, Body&& body) noexcept {
  clear_error(error);
  try {
    body();
    return IDP_OK;
  } catch (const Interrupted& e) {
    record_error(error, IDP_INTERRUPTED, e.what());
  } catch (const InvalidArgument& e) {
    record_error(error, IDP_INVALID_ARGUMENT, e.what(), e.detail().c_str(), e.hint().c_str());
  } catch (const OutOfRange& e) {
    record_error(error, IDP_OUT_OF_RANGE, e.what(), e.detail().c_str(), e.hint().c_str());
  } catch (const InvalidData& e) {
    record_error(error, IDP_INVALID_DATA, e.what(), e.detail().c_str(), e.hint().c_str());
    record_error_keys(error, e.keys());
  } catch (const InconsistentInvariants& e) {
    record_error(error, IDP_INCONSISTENT_INVARIANTS, e.what(), e.detail().c_str(), e.hint().c_str());
  } catch (const NullValue& e) {
    record_error(error, IDP_NULL_VALUE, e.what(), e.detail().c_str(), e.hint().c_str());
  } catch (const TooLarge& e) {
    record_error(error, IDP_TOO_LARGE, e.what(), e.detail().c_str(), e.hint().c_str());
  } catch (const Error& e) {
    record_error(error, IDP_INTERNAL, e.what(), e.detail().c_str(), e.hint().c_str());
  } catch (const std::bad_alloc&) {
    record_error(error, IDP_OUT_OF_MEMORY, "out of memory", "The release needs more memory than is available.",
                 "Release fewer cells at a time, or raise the server's memory limits.");
  } catch (const std::length_error&) {
    record_error(error, IDP_OUT_OF_MEMORY, "out of memory", "The release needs more memory than is available.");
  } catch (const std::exception& e) {
    record_error(error, IDP_INTERNAL, "internal error in invariant_dp", e.what());
  } catch (...) {
    record_error(error, IDP_INTERNAL, "internal error in invariant_dp");
  }
  return error->status;
}

}  // namespace invariant_dp
