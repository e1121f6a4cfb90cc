// Checked size arithmetic and buffer-extent checks (see extent.hpp).
#include "runtime/extent.hpp"

#include "runtime/errors.hpp"

namespace clforge::detail {

namespace {
[[noreturn]] void overflow(const char* routine, std::string_view what) {
  throw InvalidArgument(std::string(routine) + ": " + std::string(what) +
                        " overflows the addressable range (2^64 bytes)");
}
}  // namespace

std::size_t add_or_throw(std::size_t a, std::size_t b, const char* routine, std::string_view what) {
  const auto r = add_checked(a, b);
  if (!r) overflow(routine, std::string(what) + " (" + std::to_string(a) + " + " + std::to_string(b) + ")");
  return *r;
}

std::size_t mul_or_throw(std::size_t a, std::size_t b, const char* routine, std::string_view what) {
  const auto r = mul_checked(a, b);
  if (!r) overflow(routine, std::string(what) + " (" + std::to_string(a) + " * " + std::to_string(b) + ")");
  return *r;
}

std::size_t region_span(const char* routine, std::initializer_list<Axis> axes) {
  for (const Axis& a : axes)
    if (a.count == 0) return 0;
  std::size_t span = 1;
  for (const Axis& a : axes) {
    const auto step = mul_checked(a.count - 1, a.stride);
    const auto sum = step ? add_checked(span, *step) : std::nullopt;
    if (!sum) {  // the messages are made on failure only
      const std::size_t s =
          mul_or_throw(a.count - 1, a.stride, routine, std::string(a.name) + " times " + std::to_string(a.count - 1));
      add_or_throw(span, s, routine, std::string("the extent along ") + a.name);
    }
    span = *sum;
  }
  return span;
}

std::size_t matrix_span(const char* routine, const char* ld_name, std::size_t outer, std::size_t inner,
                        std::size_t ld) {
  if (outer == 0 || inner == 0) return 0;
  // (outer - 1) * ld + inner = 1 + (outer - 1) * ld + (inner - 1) * 1
  return region_span(routine, {{outer, ld, ld_name}, {inner, 1, "the contiguous extent"}});
}

std::size_t buffer_bytes(const cl::Buffer& b) {
  if (b() == nullptr) return 0;
  std::size_t size = 0;
  check(clGetMemObjectInfo(b(), CL_MEM_SIZE, sizeof size, &size, nullptr), "clGetMemObjectInfo");
  return size;
}

std::size_t require_extent(const char* routine, std::string_view name, const cl::Buffer& buffer, std::size_t offset,
                           std::size_t span, std::size_t elem_size) {
  require(buffer() != nullptr, routine, [&] { return std::string(name) + " is a null buffer"; });
  auto end = add_checked(offset, span);
  if (!end) add_or_throw(offset, span, routine, std::string(name) + ".offset plus the described extent");
  auto need = mul_checked(*end, elem_size);
  if (!need) mul_or_throw(*end, elem_size, routine, std::string(name) + "'s extent in bytes");
  const std::size_t have = buffer_bytes(buffer);
  require(have >= *need, routine, [&] {
    return std::string(name) + " buffer too small: holds " + std::to_string(have) +
           " bytes, the described memory needs " + std::to_string(*need) + " (offset " + std::to_string(offset) +
           " + " + std::to_string(span) + " elements of " + std::to_string(elem_size) + " bytes)";
  });
  return *end;
}

}  // namespace clforge::detail
