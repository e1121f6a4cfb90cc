// PNG and raw float files for the command line (see image_io.hpp). libpng reports errors by
// longjmp: every setjmp sits in a small function that holds no C++ objects, so no destructor
// is ever skipped; buffers are allocated outside those functions.
#include "tools/image_io.hpp"

#include <png.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>

#include "clforge/errors.hpp"

namespace clforge::cli {

namespace {

void on_png_error(png_structp png, png_const_charp msg) {
  if (auto* text = static_cast<std::string*>(png_get_error_ptr(png))) *text = msg != nullptr ? msg : "libpng error";
  png_longjmp(png, 1);
}
void on_png_warning(png_structp, png_const_charp) {}

bool png_read_header(png_structp png, png_infop info, std::FILE* f, png_uint_32* w, png_uint_32* h, int* depth,
                     int* color) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, f);
  png_set_sig_bytes(png, 8);
  png_read_info(png, info);
  png_get_IHDR(png, info, w, h, depth, color, nullptr, nullptr, nullptr);
  return true;
}

bool png_read_rows(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  return true;
}

void png_append(png_structp png, png_bytep data, png_size_t n) {
  static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), n);
}
void png_no_flush(png_structp) {}

// Encodes the image into `out` (in memory: the file is written in one go afterwards).
bool png_write_rows(png_structp png, png_infop info, std::string& out, png_uint_32 w, png_uint_32 h, int depth,
                    int color, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_write_fn(png, &out, png_append, png_no_flush);
  png_set_IHDR(png, info, w, h, depth, color, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

// Owns a libpng read or write struct pair.
struct PngRead {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngRead() { png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr); }
};
struct PngWrite {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~PngWrite() { png_destroy_write_struct(&png, info != nullptr ? &info : nullptr); }
};

struct File {
  std::FILE* f = nullptr;
  ~File() {
    if (f != nullptr) std::fclose(f);
  }
};

// The temp file being written, removed by the handler of SIGINT, SIGTERM and SIGHUP so that an
// interrupted command leaves no partial file behind (SIGKILL cannot be caught; the content is
// encoded in memory first, so the temp file exists only while its bytes are written).
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_live = 0;

extern "C" void remove_temp_and_die(int sig) {
  if (g_temp_live) ::unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Writes `bytes` through a temp file next to `path`, then renames it over `path`; on any
// failure or interruption the temp file is removed.
void write_atomic(const std::string& path, const std::string& bytes) {
  std::string tmpl = path + ".tmp-XXXXXX";
  if (tmpl.size() >= sizeof g_temp_path) throw Error("cannot write " + path + ": path too long");
  const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction act = {}, old[3];
  act.sa_handler = remove_temp_and_die;
  sigemptyset(&act.sa_mask);
  sigset_t block, prev;
  sigemptyset(&block);
  for (int s : signals) sigaddset(&block, s);
  // The path and the handlers come before the file: another thread of the process, which need not
  // block these signals, may take one at any time, and then the path must be there (mkstemp fills
  // it in place; a handler that runs before the file exists removes nothing).
  ::sigprocmask(SIG_BLOCK, &block, &prev);
  std::memcpy(g_temp_path, tmpl.c_str(), tmpl.size() + 1);
  g_temp_live = 1;
  for (int i = 0; i < 3; ++i) ::sigaction(signals[i], &act, &old[i]);
  const int fd = ::mkstemp(g_temp_path);
  const int mkstemp_errno = errno;
  if (fd >= 0) {
    tmpl = g_temp_path;
  } else {
    g_temp_live = 0;
    for (int i = 0; i < 3; ++i) ::sigaction(signals[i], &old[i], nullptr);
  }
  ::sigprocmask(SIG_SETMASK, &prev, nullptr);
  if (fd < 0)
    throw Error("cannot write " + path + ": cannot create a temp file there: " + std::strerror(mkstemp_errno));
  auto restore = [&] {
    ::sigprocmask(SIG_BLOCK, &block, &prev);
    g_temp_live = 0;
    for (int i = 0; i < 3; ++i) ::sigaction(signals[i], &old[i], nullptr);
    ::sigprocmask(SIG_SETMASK, &prev, nullptr);
  };
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  std::string problem;
  std::size_t done = 0;
  while (problem.empty() && done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      problem = std::strerror(errno);
    else
      done += static_cast<std::size_t>(n);
  }
  if (problem.empty() && ::fsync(fd) != 0) problem = std::strerror(errno);
  if (::close(fd) != 0 && problem.empty()) problem = std::strerror(errno);
  if (problem.empty() && std::rename(tmpl.c_str(), path.c_str()) != 0) problem = std::strerror(errno);
  if (!problem.empty()) std::remove(tmpl.c_str());
  restore();
  if (!problem.empty()) throw Error("cannot write " + path + ": " + problem);
}

unsigned quantize(float v, unsigned maxv) {
  if (!(v > 0)) return 0;  // also NaN
  if (v >= 1) return maxv;
  return static_cast<unsigned>(std::lround(static_cast<double>(v) * maxv));
}

}  // namespace

bool is_png_path(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".png";
}

const char* const kSupportedImages =
    "clforge blur reads and writes PNG (8- or 16-bit gray, RGB or RGBA) and raw 32-bit floats (any name without an "
    "image extension; input with --size WxH[,channels=4])";

std::string image_format_of_name(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return {};
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::pair<const char*, const char*> kinds[] = {
      {"png", "PNG"},          {"jpg", "JPEG"},  {"jpeg", "JPEG"}, {"jpe", "JPEG"},      {"jfif", "JPEG"},
      {"gif", "GIF"},          {"tif", "TIFF"},  {"tiff", "TIFF"}, {"webp", "WebP"},     {"bmp", "BMP"},
      {"heic", "HEIF"},        {"heif", "HEIF"}, {"avif", "AVIF"}, {"jp2", "JPEG 2000"}, {"jxl", "JPEG XL"},
      {"pbm", "PNM"},          {"pgm", "PNM"},   {"ppm", "PNM"},   {"pnm", "PNM"},       {"exr", "OpenEXR"},
      {"hdr", "Radiance HDR"}, {"tga", "TGA"},   {"qoi", "QOI"},   {"ico", "ICO"},       {"svg", "SVG"}};
  for (const auto& [e, kind] : kinds)
    if (ext == e) return kind;
  return {};
}

std::string image_format(const std::string& path) {
  unsigned char b[12] = {};
  std::size_t n = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
    n = std::fread(b, 1, sizeof b, f);
    std::fclose(f);
  }
  const auto starts = [&](const char* sig, std::size_t len, std::size_t at = 0) {
    return n >= at + len && std::memcmp(b + at, sig, len) == 0;
  };
  if (starts("\x89PNG\r\n\x1a\n", 8)) return "PNG";
  if (starts("\xff\xd8\xff", 3)) return "JPEG";
  if (starts("GIF87a", 6) || starts("GIF89a", 6)) return "GIF";
  if (starts("II*\0", 4) || starts("MM\0*", 4)) return "TIFF";
  if (starts("RIFF", 4) && starts("WEBP", 4, 8)) return "WebP";
  if (starts("ftyp", 4, 4)) return "HEIF/AVIF";
  if (starts("\0\0\0\x0cjP  ", 8)) return "JPEG 2000";
  if (starts("\0\0\0\x0cJXL ", 8)) return "JPEG XL";
  if (starts("v/1\x01", 4)) return "OpenEXR";
  if (starts("qoif", 4)) return "QOI";
  return image_format_of_name(path);
}

float srgb_to_linear(float v) {
  const double x = v;
  return static_cast<float>(x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4));
}

float linear_to_srgb(float v) {
  const double x = std::max(0.0, static_cast<double>(v));
  return static_cast<float>(x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1 / 2.4) - 0.055);
}

Image read_png(const std::string& path) {
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (file.f == nullptr) throw Error(path + ": cannot open: " + std::strerror(errno));
  unsigned char sig[8];
  if (std::fread(sig, 1, 8, file.f) != 8 || png_sig_cmp(sig, 0, 8) != 0)
    throw Error(path + ": not a PNG file (no PNG signature)");
  std::string message;
  PngRead r;
  r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &message, on_png_error, on_png_warning);
  if (r.png == nullptr) throw Error(path + ": libpng could not start");
  r.info = png_create_info_struct(r.png);
  if (r.info == nullptr) throw Error(path + ": libpng could not start");
  png_uint_32 w = 0, h = 0;
  int depth = 0, color = 0;
  if (!png_read_header(r.png, r.info, file.f, &w, &h, &depth, &color))
    throw Error(path + ": corrupt or truncated PNG: " + message);
  int channels = 0;
  if (color == PNG_COLOR_TYPE_GRAY)
    channels = 1;
  else if (color == PNG_COLOR_TYPE_RGB)
    channels = 3;
  else if (color == PNG_COLOR_TYPE_RGB_ALPHA)
    channels = 4;
  const char* kind = color == PNG_COLOR_TYPE_PALETTE      ? "palette colours"
                     : color == PNG_COLOR_TYPE_GRAY_ALPHA ? "gray with alpha"
                                                          : nullptr;
  if (channels == 0 || (depth != 8 && depth != 16)) {
    const std::string what = kind != nullptr ? kind : std::to_string(depth) + "-bit samples";
    throw Error(path + ": unsupported PNG (" + what + "); supported: 8- or 16-bit gray, RGB or RGBA");
  }
  Image img;
  img.width = w;
  img.height = h;
  img.channels = channels;
  img.bit_depth = depth;
  const std::size_t row_bytes = static_cast<std::size_t>(w) * channels * (depth / 8);
  std::vector<unsigned char> raw(row_bytes * h);
  std::vector<png_bytep> rows(h);
  for (png_uint_32 y = 0; y < h; ++y) rows[y] = raw.data() + y * row_bytes;
  if (!png_read_rows(r.png, r.info, rows.data())) throw Error(path + ": corrupt or truncated PNG: " + message);
  const std::size_t n = static_cast<std::size_t>(w) * h * channels;
  img.data.resize(n);
  if (depth == 8) {
    for (std::size_t i = 0; i < n; ++i) img.data[i] = raw[i] / 255.0f;
    img.bytes = std::move(raw);
  } else {
    for (std::size_t i = 0; i < n; ++i) img.data[i] = ((raw[2 * i] << 8) | raw[2 * i + 1]) / 65535.0f;
  }
  return img;
}

Image read_raw(const std::string& path, std::size_t width, std::size_t height, int channels) {
  File file;
  file.f = std::fopen(path.c_str(), "rb");
  if (file.f == nullptr) throw Error(path + ": cannot open: " + std::strerror(errno));
  Image img;
  img.width = width;
  img.height = height;
  img.channels = channels;
  const std::size_t n = width * height * channels;
  img.data.resize(n);
  const std::size_t got = std::fread(img.data.data(), sizeof(float), n, file.f);
  const bool more = std::fgetc(file.f) != EOF;
  if (got != n || more) {
    struct stat st {};
    const long long size = ::stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : -1;
    throw Error(path + ": holds " + std::to_string(size) + " bytes, but --size " + std::to_string(width) + "x" +
                std::to_string(height) + " with " + std::to_string(channels) + " channel(s) of float needs " +
                std::to_string(n * sizeof(float)));
  }
  return img;
}

void write_png(const std::string& path, const Image& img, int bit_depth) {
  if (bit_depth != 8 && bit_depth != 16)
    throw Error("PNG bit depth must be 8 or 16 (got " + std::to_string(bit_depth) + ")");
  const int c = img.channels;
  const int color = c == 1 ? PNG_COLOR_TYPE_GRAY : c == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
  if (c != 1 && c != 3 && c != 4) throw Error("cannot write " + path + ": PNG needs 1, 3 or 4 channels");
  const std::size_t n = img.width * img.height * c;
  const std::size_t row_bytes = img.width * c * (bit_depth / 8);
  std::vector<unsigned char> raw(row_bytes * img.height);
  if (bit_depth == 8 && img.bytes.size() == n) {
    raw = img.bytes;
  } else {
    const unsigned maxv = bit_depth == 8 ? 255 : 65535;
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned v = quantize(img.data[i], maxv);
      if (bit_depth == 8) {
        raw[i] = static_cast<unsigned char>(v);
      } else {
        raw[2 * i] = static_cast<unsigned char>(v >> 8);
        raw[2 * i + 1] = static_cast<unsigned char>(v & 0xff);
      }
    }
  }
  std::vector<png_bytep> rows(img.height);
  for (std::size_t y = 0; y < img.height; ++y) rows[y] = raw.data() + y * row_bytes;
  std::string encoded, message;
  {
    PngWrite wr;
    wr.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &message, on_png_error, on_png_warning);
    if (wr.png == nullptr) throw Error("cannot write " + path + ": libpng could not start");
    wr.info = png_create_info_struct(wr.png);
    if (wr.info == nullptr) throw Error("cannot write " + path + ": libpng could not start");
    if (!png_write_rows(wr.png, wr.info, encoded, static_cast<png_uint_32>(img.width),
                        static_cast<png_uint_32>(img.height), bit_depth, color, rows.data()))
      throw Error("cannot write " + path + ": libpng: " + message);
  }
  write_atomic(path, encoded);
}

void write_raw(const std::string& path, const Image& img) {
  write_atomic(path, std::string(reinterpret_cast<const char*>(img.data.data()), img.data.size() * sizeof(float)));
}

}  // namespace clforge::cli
