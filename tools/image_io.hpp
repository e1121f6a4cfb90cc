// Image files for the command line: PNG (8- and 16-bit gray, RGB, RGBA, through libpng) and
// raw float files (no header; width, height and channels given by the user). Every error
// names the file; outputs are written to a temp file in the target folder and renamed, so a
// failure never leaves a partial file at the output path.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace clforge::cli {

/// Pixels as floats, channels interleaved, rows top to bottom. PNG samples are scaled to
/// [0, 1] (sample / 255 or / 65535); raw files hold whatever floats they hold.
struct Image {
  std::size_t width = 0, height = 0;
  int channels = 0;    ///< 1 gray, 3 RGB, 4 RGBA
  int bit_depth = 32;  ///< 8 or 16 for PNG, 32 for raw floats
  std::vector<float> data;
  /// Exactly the 8-bit samples of an 8-bit PNG (channels per pixel as in the file), so that
  /// 8-bit images can go through the library's RGBA8 path unchanged. Empty otherwise.
  std::vector<unsigned char> bytes;
};

/// True when the path ends in ".png" (any case).
bool is_png_path(const std::string& path);

/// What clforge blur reads and writes, for messages.
extern const char* const kSupportedImages;
/// The image format a file name's extension names ("PNG", "JPEG", "GIF", "TIFF", "WebP", ...),
/// or "" when it names none (clforge blur then reads and writes raw floats).
std::string image_format_of_name(const std::string& path);
/// The format of the file at `path`: from its first bytes when it starts with an image
/// signature ("PNG", "JPEG", ...), else from its name (image_format_of_name).
std::string image_format(const std::string& path);

/// The sRGB transfer functions (IEC 61966-2-1) on values in [0, 1]: encoded value to linear
/// light and back.
float srgb_to_linear(float v);
float linear_to_srgb(float v);

/// Reads a PNG. Throws clforge::Error naming the file when it cannot be opened, is not a PNG,
/// is corrupt or truncated (libpng's message included), or is of an unsupported kind
/// (palette, gray+alpha, fewer than 8 bits per sample).
Image read_png(const std::string& path);
/// Reads width * height * channels native-endian floats; the file size must match exactly.
Image read_raw(const std::string& path, std::size_t width, std::size_t height, int channels);

/// Writes an 8- or 16-bit PNG of img.channels (1, 3 or 4) channels from img.data, clamped to
/// [0, 1] and rounded to the nearest sample; when img.bytes is set and bit_depth is 8, those
/// bytes are written as they are. Atomic (temp file in the same folder, then rename).
void write_png(const std::string& path, const Image& img, int bit_depth);
/// Writes img.data as native-endian floats. Atomic like write_png.
void write_raw(const std::string& path, const Image& img);

}  // namespace clforge::cli
