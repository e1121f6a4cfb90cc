// The `clforge blur` command on PNG files made here (a minimal PNG writer below): round trips,
// raw floats, clear failures that leave no output, --linear against the stored values,
// unsupported formats, and the measured crossovers stored for auto.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <vector>

#include "host/blur.hpp"
#include "runtime/environment.hpp"
#include "runtime/files.hpp"
#include "tests/support.hpp"

using namespace clforge;

#ifdef CLFORGE_CLI
namespace {

// A minimal PNG writer (stored deflate blocks), so the test makes its own input files.
std::uint32_t crc32(const unsigned char* p, std::size_t n, std::uint32_t c = 0xffffffffu) {
  for (std::size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c;
}

void put32(std::string& s, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put32(png, static_cast<std::uint32_t>(data.size()));
  std::string td = std::string(type, 4) + data;
  png += td;
  put32(png, crc32(reinterpret_cast<const unsigned char*>(td.data()), td.size()) ^ 0xffffffffu);
}

// samples: h rows of w * channels values (big-endian 16-bit when depth is 16).
std::string make_png(std::size_t w, std::size_t h, int channels, int depth, const std::vector<unsigned>& samples) {
  std::string raw;
  for (std::size_t y = 0; y < h; ++y) {
    raw += '\0';  // filter: none
    for (std::size_t i = 0; i < w * channels; ++i) {
      const unsigned v = samples[y * w * channels + i];
      if (depth == 16) raw += static_cast<char>(v >> 8);
      raw += static_cast<char>(v & 0xff);
    }
  }
  std::string z = "\x78\x01";
  std::uint32_t a = 1, b = 0;
  for (unsigned char ch : raw) {
    a = (a + ch) % 65521;
    b = (b + a) % 65521;
  }
  for (std::size_t pos = 0; pos == 0 || pos < raw.size(); pos += 65535) {
    const std::size_t len = std::min<std::size_t>(65535, raw.size() - pos);
    z += static_cast<char>(pos + len >= raw.size() ? 1 : 0);
    z += static_cast<char>(len & 0xff);
    z += static_cast<char>(len >> 8);
    z += static_cast<char>(~len & 0xff);
    z += static_cast<char>((~len >> 8) & 0xff);
    z += raw.substr(pos, len);
    if (len == 0) break;
  }
  put32(z, (b << 16) | a);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  put32(ihdr, static_cast<std::uint32_t>(w));
  put32(ihdr, static_cast<std::uint32_t>(h));
  const int color = channels == 1 ? 0 : channels == 3 ? 2 : 6;
  ihdr += static_cast<char>(depth);
  ihdr += static_cast<char>(color);
  ihdr += std::string(3, '\0');
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  return png;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<float> read_floats(const std::string& path) {
  const auto text = detail::read_file(path);
  REQUIRE(text.has_value());
  std::vector<float> v(text->size() / 4);
  std::memcpy(v.data(), text->data(), v.size() * 4);
  return v;
}

// Files in a folder (to prove that no temp file was left behind).
std::size_t count_files(const std::string& dir) {
  std::string out;
  test::run_command("ls -A '" + dir + "' | wc -l", out);
  return static_cast<std::size_t>(std::atol(out.c_str()));
}

}  // namespace

TEST_SUITE("blur") {
  TEST_CASE("clforge blur: PNG round trip, raw floats, and clear failures that leave no output") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("blur-cli");
    const std::string cli = std::string("CLFORGE_USER_TUNING_DIR='") + dir + "/tuning' " + CLFORGE_CLI + " --device " +
                            s.entry.info.index_string() + " blur ";
    const std::size_t W = 23, H = 17;
    std::mt19937_64 rng(test::seed() + 1000);
    std::string out;
    for (int depth : {8, 16})
      for (int ch : {1, 3, 4}) {
        CAPTURE(depth);
        CAPTURE(ch);
        const unsigned maxv = depth == 8 ? 255 : 65535;
        std::vector<unsigned> px(W * H * ch);
        for (auto& v : px) v = static_cast<unsigned>(rng() % (maxv + 1));
        const std::string in_png = dir + "/in.png", out_png = dir + "/out.png", raw = dir + "/out.f32",
                          back = dir + "/back.f32";
        write_bytes(in_png, make_png(W, H, ch, depth, px));
        // PNG -> raw floats: checks the reading and the blur (values scaled to 0..1).
        int rc = test::run_command(
            cli + "'" + in_png + "' '" + raw + "' --sigma 1.5 --sigma-y 2 --method separable --border mirror", out);
        INFO(out);
        REQUIRE(rc == 0);
        CHECK(out.find("separable") != std::string::npos);
        CHECK(out.find(" ms") != std::string::npos);
        const int c4 = ch == 1 ? 1 : 4;  // gray stays one channel; RGB gains an opaque alpha
        std::vector<float> img(W * H * c4);
        for (std::size_t p = 0; p < W * H; ++p)
          for (int k = 0; k < c4; ++k) img[p * c4 + k] = k < ch ? static_cast<float>(px[p * ch + k]) / maxv : 1.0f;
        const auto ref = host::gaussian_blur(img.data(), W, H, c4, W, 1.5, 2.0, BlurBorder::Mirror);
        const std::vector<float> got = read_floats(raw);
        REQUIRE(got.size() == ref.size());
        if (depth == 8 && ch > 1) {  // the RGBA8 path: results rounded to whole 8-bit steps
          double worst = 0;
          for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(got[i] - ref[i]) * 255);
          CHECK(worst <= 0.5 + 1e-3);
        } else {
          CHECK(host::compare(got, ref).ok(host::truncated_blur_tolerance(1.5, 2)));
        }
        // PNG -> PNG, then decoded again by the command with an identity blur (sigma 0.01 has
        // weights exactly 0, 1, 0): the written PNG holds the rounded blur.
        rc = test::run_command(
            cli + "'" + in_png + "' '" + out_png + "' --sigma 1.5 --sigma-y 2 --method separable --border mirror", out);
        REQUIRE(rc == 0);
        rc = test::run_command(cli + "'" + out_png + "' '" + back + "' --sigma 0.01", out);
        REQUIRE(rc == 0);
        const std::vector<float> dec = read_floats(back);
        REQUIRE(dec.size() == ref.size());
        double worst = 0;
        for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(dec[i] - ref[i]) * maxv);
        CHECK(worst <= 1.0);  // 8-bit RGBA goes through the device's RGBA8 path: rounding may differ by one
      }
    // Raw float input with an explicit size, both channel counts.
    {
      const std::vector<float> img = host::random_floats(W * H * 4, test::seed() + 1001);
      write_bytes(dir + "/in.f32", std::string(reinterpret_cast<const char*>(img.data()), img.size() * 4));
      const int rc =
          test::run_command(cli + "'" + dir + "/in.f32' '" + dir + "/o.f32' --size " + std::to_string(W) + "x" +
                                std::to_string(H) + ",channels=4 --sigma 3 --method recursive --border zero",
                            out);
      INFO(out);
      REQUIRE(rc == 0);
      CHECK(out.find("recursive") != std::string::npos);
      const auto ref = host::recursive_blur(img.data(), W, H, 4, W, 3, 3, BlurBorder::Zero);
      CHECK(host::compare(read_floats(dir + "/o.f32"), ref).ok(host::recursive_blur_tolerance(3, 3)));
    }
    // Failures: non-zero exit, a message naming the problem, no output file, no temp file.
    const std::string good = make_png(W, H, 3, 8, std::vector<unsigned>(W * H * 3, 77));
    struct Bad {
      std::string name, bytes, needle;
    };
    std::string bad_crc = good;
    bad_crc[40] ^= 0x55;  // inside IDAT: the CRC no longer matches
    const Bad bad[] = {
        {"truncated.png", good.substr(0, good.size() / 2), "truncated.png"},
        {"crc.png", bad_crc, "crc.png"},
        {"notpng.png", "hello, this is not an image\n", "notpng.png"},
        {"empty.png", "", "empty.png"},
    };
    for (const auto& b : bad) {
      const std::string fail_dir = test::temp_dir("blur-cli-fail");
      write_bytes(fail_dir + "/" + b.name, b.bytes);
      const int rc =
          test::run_command(cli + "'" + fail_dir + "/" + b.name + "' '" + fail_dir + "/out.png' --sigma 2", out);
      INFO(b.name << ": " << out);
      CHECK(rc != 0);
      CHECK(out.find(b.needle) != std::string::npos);
      CHECK(!detail::file_exists(fail_dir + "/out.png"));
      CHECK(count_files(fail_dir) == 1);
    }
    int rc = test::run_command(cli + "'" + dir + "/missing.png' '" + dir + "/x.png' --sigma 2", out);
    CHECK(rc != 0);
    CHECK(out.find("missing.png") != std::string::npos);
    write_bytes(dir + "/ok.png", good);
    rc = test::run_command(cli + "'" + dir + "/ok.png' '" + dir + "/no/such/dir/x.png' --sigma 2", out);
    CHECK(rc != 0);
    CHECK(out.find("no/such/dir") != std::string::npos);
    rc = test::run_command(cli + "'" + dir + "/ok.png' '" + dir + "/x.png' --sigma 0", out);
    CHECK(rc != 0);
    CHECK(!detail::file_exists(dir + "/x.png"));
    rc = test::run_command(cli + "'" + dir + "/in.f32' '" + dir + "/x.png' --sigma 1", out);  // raw without --size
    CHECK(rc != 0);
    CHECK(out.find("--size") != std::string::npos);
    CHECK(!detail::file_exists(dir + "/x.png"));

    rc = test::run_command(cli + "'" + dir + "/ok.png' '" + dir + "/x.png' --sigma 1 --size 23x17", out);
    CHECK(rc == 2);  // --size describes raw input only
    CHECK(out.find("--size") != std::string::npos);

    // The measured crossovers land in the user database, where method auto finds them.
    const std::string tdir = dir + "/crossover";
    rc = test::run_command("CLFORGE_USER_TUNING_DIR='" + tdir + "' " + CLFORGE_CLI + " --device " +
                               s.entry.info.index_string() + " tune blur-crossover --size 48x40",
                           out);
    INFO(out);
    REQUIRE(rc == 0);
    CHECK(out.find("recursive from sigma") != std::string::npos);
    test::ScopedEnv env("CLFORGE_USER_TUNING_DIR", tdir);
    const Configuration cfg = resolve_configuration("blur", "*", s.entry.info, Tuning{});
    CHECK(cfg.sources.at("BLUR_AUTO_SIGMA_RECURSIVE").find("user") == 0);
    CHECK(cfg.sources.at("BLUR_AUTO_SIGMA_DIRECT").find("user") == 0);
    CHECK(cfg.sources.at("BLUR_CV_WG").find("shipped") == 0);
  }

  TEST_CASE("a kernel build writes nothing on stderr: float16 helpers on a CPU (-Wpsabi)") {
    // PoCL's clang prints "N warnings generated." on the process's stderr when a build warns.
    // The CPU row's float16 arguments and results of helpers warn (-Wpsabi) on CPUs without
    // AVX-512 unless cl/common/common.cl silences it; fresh caches, so that the kernels compile.
    auto& s = test::session();
    if (s.entry.info.type != "CPU") return;
    const std::string dir = test::temp_dir("blur_cli_quiet");
    std::string out;
    const int rc = test::run_command("POCL_CACHE_DIR='" + dir + "' CLFORGE_CACHE_DIR=off " + CLFORGE_CLI +
                                         " --device " + s.entry.info.index_string() +
                                         " run blur --size 64x48 --sigma 3 "
                                         "--method separable 2>&1",
                                     out);
    INFO(out);
    CHECK(rc == 0);
    CHECK(out.find("ok") != std::string::npos);
    CHECK(out.find("warning") == std::string::npos);
  }

  TEST_CASE("clforge blur --linear blurs in linear light; other image formats are refused by name") {
    auto& s = test::session();
    const std::string dir = test::temp_dir("blur-linear");
    const std::string cli = std::string(CLFORGE_CLI) + " --device " + s.entry.info.index_string() + " blur ";
    // A black | white edge, 8-bit gray: the stored values are 0 and 1, in linear light as well.
    const std::size_t W = 32, H = 6;
    std::vector<unsigned> edge(W * H);
    for (std::size_t i = 0; i < edge.size(); ++i) edge[i] = i % W < W / 2 ? 0 : 255;
    write_bytes(dir + "/edge.png", make_png(W, H, 1, 8, edge));
    std::string out;
    REQUIRE(test::run_command(cli + "'" + dir + "/edge.png' '" + dir + "/plain.f32' --sigma 2", out) == 0);
    CHECK(out.find("on the stored values") != std::string::npos);
    REQUIRE(test::run_command(cli + "'" + dir + "/edge.png' '" + dir + "/linear.f32' --sigma 2 --linear", out) == 0);
    CHECK(out.find("in linear light") != std::string::npos);
    const std::vector<float> plain = read_floats(dir + "/plain.f32"), linear = read_floats(dir + "/linear.f32");
    REQUIRE(plain.size() == W * H);
    REQUIRE(linear.size() == W * H);
    // Decoding 0 and 1 changes nothing, so the linear result is the same blur, sRGB-encoded
    // (IEC 61966-2-1): brighter than the stored-value blur wherever the edge is blurred.
    const auto encode = [](double l) { return l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055; };
    for (std::size_t x = 0; x < W; ++x) {
      CAPTURE(x);
      const float p = plain[2 * W + x], l = linear[2 * W + x];
      CHECK(l == doctest::Approx(encode(p)).epsilon(1e-4));
      if (p > 0.05f && p < 0.95f) CHECK(l > p + 0.02f);
    }
    // The last black column: 0.40 of white in stored values (the Gaussian's mass past 0.5
    // pixels), sRGB-encoded 0.40 of the light, 0.66, in linear light.
    const float last_black_plain = plain[2 * W + W / 2 - 1], last_black_linear = linear[2 * W + W / 2 - 1];
    CHECK(last_black_plain > 0.35f);
    CHECK(last_black_plain < 0.45f);
    CHECK(last_black_linear > 0.60f);
    // A flat RGB image stays as it was through decode, blur and encode (raw output: RGBA, alpha 1).
    write_bytes(dir + "/flat.png", make_png(9, 7, 3, 8, std::vector<unsigned>(9 * 7 * 3, 200)));
    REQUIRE(test::run_command(cli + "'" + dir + "/flat.png' '" + dir + "/flat.f32' --sigma 1.5 --linear", out) == 0);
    const std::vector<float> flat = read_floats(dir + "/flat.f32");
    REQUIRE(flat.size() == 9 * 7 * 4);
    for (std::size_t i = 0; i < flat.size(); ++i)
      CHECK(flat[i] == doctest::Approx(i % 4 == 3 ? 1.0 : 200 / 255.0).epsilon(1e-4));
    // Raw floats are blurred as they are: --linear is refused for them.
    CHECK(test::run_command(cli + "'" + dir + "/plain.f32' '" + dir + "/x.f32' --size 32x6 --sigma 1 --linear", out) ==
          2);
    CHECK(out.find("--linear") != std::string::npos);

    // JPEG (by its signature, whatever the name) and other formats: named, with what is supported.
    const std::string jpeg = std::string("\xff\xd8\xff\xe0\x00\x10JFIF\x00", 11) + std::string(64, '\x11');
    for (const std::string name : {"photo.jpg", "photo.dat"}) {
      CAPTURE(name);
      write_bytes(dir + "/" + name, jpeg);
      CHECK(test::run_command(cli + "'" + dir + "/" + name + "' '" + dir + "/o.png' --sigma 1", out) == 1);
      CHECK(out.find(name + ": JPEG images are not supported") != std::string::npos);
      CHECK(out.find("PNG (8- or 16-bit gray, RGB or RGBA) and raw 32-bit floats") != std::string::npos);
      CHECK(out.find("raw float file") == std::string::npos);
      CHECK(!detail::file_exists(dir + "/o.png"));
    }
    write_bytes(dir + "/anim.gif", "GIF89a" + std::string(32, '\0'));
    CHECK(test::run_command(cli + "'" + dir + "/anim.gif' '" + dir + "/o.png' --sigma 1", out) == 1);
    CHECK(out.find("GIF images are not supported") != std::string::npos);
    CHECK(test::run_command(cli + "'" + dir + "/edge.png' '" + dir + "/o.jpg' --sigma 1", out) == 2);
    CHECK(out.find("cannot write JPEG") != std::string::npos);
    CHECK(!detail::file_exists(dir + "/o.jpg"));
  }
}
#endif
