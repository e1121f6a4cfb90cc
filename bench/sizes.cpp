// The size grammar of the command line and the benchmarks (see sizes.hpp).
#include "bench/sizes.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "clforge/errors.hpp"
#include "runtime/strings.hpp"

namespace clforge::bench {

namespace {

constexpr std::size_t kMaxCount = 2147483647;  // sizes reach kernels as int

struct Grammar {
  std::vector<std::size_t> dims;  // accepted numbers of dimensions
  std::vector<std::string> keys;
  const char* help;
  std::vector<std::string> flags = {};  // words without a value
};

const Grammar& grammar_of(const std::string& family) {
  static const std::map<std::string, Grammar> g = {
      {"transpose", {{1, 2}, {"elem"}, "N or RxC, optionally ,elem=4|8|16 (e.g. 4096, 1000x999,elem=8)"}},
      {"sgemm",
       {{1, 3},
        {"trans", "batch"},
        "N or MxNxK, optionally ,trans=NN|NT|TN|TT and ,batch=B (a strided batch of B products) (e.g. 1024, "
        "512x8192x512,trans=NT, 64,batch=10000)"}},
      {"fft",
       {{1, 2, 3},
        {"batch", "mib", "layout"},
        "N, NxM or NxMxK (2-D, 3-D: row-major, the last axis fastest), optionally ,batch=B or ,mib=M, "
        ",layout=interleaved (1-D) and ,real (real input: R2C, C2R inverse; 2-D, 3-D: R2C then C2R) (e.g. 1024, "
        "1024,batch=64, 4096,mib=512, 1000,real, 256x256,batch=4, 64x100,real)",
        {"real"}}},
      {"blur",
       {{1, 2},
        {"channels", "sigma"},
        "N or WxH, optionally ,channels=1|4 and (tune) ,sigma=S (e.g. 4096, 1920x1080,channels=4, "
        "1024x1024,sigma=10)"}},
  };
  return g.at(family);
}

std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  for (;;) {
    const auto at = s.find(sep, pos);
    parts.push_back(s.substr(pos, at == std::string::npos ? std::string::npos : at - pos));
    if (at == std::string::npos) return parts;
    pos = at + 1;
  }
}

std::string join_with(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& e : v) s += (s.empty() ? "" : sep) + e;
  return s;
}

}  // namespace

const std::vector<std::string>& routine_names() {
  static const std::vector<std::string> r{"transpose", "sgemm", "fft", "blur"};
  return r;
}

std::string family_of(const std::string& name) {
  for (const auto& r : routine_names())
    if (name == r || name.rfind(r + "_", 0) == 0) return r;
  return {};
}

namespace {

// What a size's text is read with: its grammar, and the errors that name the text and the grammar.
struct SizeReader {
  const std::string& routine;
  const std::string& text;
  const std::string family;
  const Grammar& g;

  InvalidArgument fail(const std::string& why) const {
    return InvalidArgument("size '" + text + "' of " + routine + ": " + why + "; " + family + " sizes are " + g.help);
  }

  std::size_t count(const std::string& s, const std::string& what) const {
    if (s.empty()) throw fail(what + " is empty");
    std::size_t v = 0;
    for (char c : s) {
      if (!std::isdigit(static_cast<unsigned char>(c))) {
        std::string why = "'" + s + "' is not a whole number";
        if (s.find('@') != std::string::npos || s.find(':') != std::string::npos)
          why += " (sizes take no '@' or ':'; options follow the dimensions as ,KEY=VALUE)";
        throw fail(why);
      }
      v = v * 10 + static_cast<std::size_t>(c - '0');
      if (v > kMaxCount) throw fail(what + " " + s + " is larger than " + std::to_string(kMaxCount));
    }
    if (v == 0) throw fail(what + " must be at least 1");
    return v;
  }

  // A blur sigma: a finite number in (0, 4096] written as a plain decimal.
  double sigma(const std::string& s) const {
    const bool plain = !s.empty() && s.find_first_not_of("0123456789.") == std::string::npos &&
                       std::count(s.begin(), s.end(), '.') <= 1 && s != ".";
    const double v = plain ? std::strtod(s.c_str(), nullptr) : 0;
    if (!(v > 0 && v <= 4096)) throw fail("sigma '" + s + "' is not a number in (0, 4096]");
    return v;
  }

  // The dimensions: x, and y and z (a missing one repeats x; fft: 0, an axis not given).
  Size dimensions(const std::string& head) const {
    const std::vector<std::string> dims = split_on(head, 'x');
    if (std::find(g.dims.begin(), g.dims.end(), dims.size()) == g.dims.end()) {
      std::vector<std::string> allowed;
      for (std::size_t k : g.dims) allowed.push_back(std::to_string(k));
      throw fail(std::to_string(dims.size()) + " dimensions given, " + family + " takes " + join_with(allowed, " or "));
    }
    Size s;
    s.routine = family;
    std::vector<std::size_t> d;
    for (const auto& part : dims) d.push_back(count(part, "a dimension"));
    s.x = d[0];
    s.y = d.size() > 1 ? d[1] : d[0];
    s.z = d.size() > 2 ? d[2] : d[0];
    if (family == "fft") {  // y and z: the further axes of a 2-D or 3-D transform, 0 when not given
      s.y = d.size() > 1 ? d[1] : 0;
      s.z = d.size() > 2 ? d[2] : 0;
      if (s.fft_points() > kMaxCount) throw fail("a transform of more than " + std::to_string(kMaxCount) + " points");
    }
    return s;
  }

  // The ,KEY=VALUE parts (and flags) after the dimensions, each known to the grammar and given once.
  std::map<std::string, std::string> keys(const std::vector<std::string>& parts) const {
    std::map<std::string, std::string> keys;
    for (std::size_t i = 1; i < parts.size(); ++i) {
      const auto eq = parts[i].find('=');
      const std::string key = parts[i].substr(0, eq);
      if (eq == std::string::npos && std::find(g.flags.begin(), g.flags.end(), key) != g.flags.end()) {
        if (!keys.emplace(key, "").second) throw fail("'" + key + "' given twice");
        continue;
      }
      if (eq == std::string::npos || key.empty()) throw fail("'" + parts[i] + "' is not KEY=VALUE");
      if (std::find(g.keys.begin(), g.keys.end(), key) == g.keys.end())
        throw fail("unknown key '" + key + "' (keys: " + join_with(g.keys, ", ") + ")");
      if (!keys.emplace(key, parts[i].substr(eq + 1)).second) throw fail("key '" + key + "' given twice");
    }
    return keys;
  }

  void set(Size& s, const std::string& key, const std::string& value) const {
    if (key == "elem") {
      s.elem = count(value, "elem");
      if (s.elem != 4 && s.elem != 8 && s.elem != 16) throw fail("elem must be 4, 8 or 16");
    } else if (key == "trans") {
      const std::string t = detail::to_lower(value);
      if (t.size() != 2 || (t[0] != 'n' && t[0] != 't') || (t[1] != 'n' && t[1] != 't'))
        throw fail("trans must be NN, NT, TN or TT");
      s.trans_a = t[0] == 't';
      s.trans_b = t[1] == 't';
    } else if (key == "batch") {
      s.batch = count(value, "batch");
    } else if (key == "mib") {
      s.mib = count(value, "mib");
    } else if (key == "layout") {
      if (value != "contiguous" && value != "interleaved") throw fail("layout must be contiguous or interleaved");
      s.interleaved = value == "interleaved";
    } else if (key == "real") {
      s.real = true;
    } else if (key == "channels") {
      s.channels = count(value, "channels");
      if (s.channels != 1 && s.channels != 4) throw fail("channels must be 1 or 4");
      s.has_channels = true;
    } else if (key == "sigma") {
      s.sigma = sigma(value);
    }
  }
};

}  // namespace

Size parse_size(const std::string& routine, const std::string& text) {
  const std::string family = family_of(routine);
  if (family.empty()) throw InvalidArgument("no size grammar for '" + routine + "'");
  const SizeReader r{routine, text, family, grammar_of(family)};
  const std::vector<std::string> parts = split_on(text, ',');
  Size s = r.dimensions(parts[0]);
  for (const auto& [key, value] : r.keys(parts)) r.set(s, key, value);
  if (s.batch != 0 && s.mib != 0) throw r.fail("batch and mib both given (one decides the batch)");
  if (s.y != 0 && s.interleaved) throw r.fail("2-D and 3-D transforms are contiguous (leave out layout)");
  return s;
}

std::string Size::text() const {
  const auto n = [](std::size_t v) { return std::to_string(v); };
  if (routine == "transpose") return n(x) + "x" + n(y) + (elem != 4 ? ",elem=" + n(elem) : "");
  if (routine == "sgemm") {
    std::string t = n(x) + "x" + n(y) + "x" + n(z);
    if (trans_a || trans_b) t += std::string(",trans=") + (trans_a ? 'T' : 'N') + (trans_b ? 'T' : 'N');
    return t + (batch != 0 ? ",batch=" + n(batch) : "");
  }
  if (routine == "fft") {
    std::string t = n(x) + (y != 0 ? "x" + n(y) : "") + (z != 0 ? "x" + n(z) : "");
    if (batch != 0) t += ",batch=" + n(batch);
    if (mib != 0) t += ",mib=" + n(mib);
    return t + (interleaved ? ",layout=interleaved" : "") + (real ? ",real" : "");
  }
  std::string t = n(x) + "x" + n(y) + (has_channels ? ",channels=" + n(channels) : "");
  if (sigma <= 0) return t;
  char g[32];
  std::snprintf(g, sizeof g, "%g", sigma);
  return t + ",sigma=" + g;
}

std::size_t Size::fft_batch(std::size_t default_bytes) const {
  if (batch != 0) return batch;
  const std::size_t bytes = mib != 0 ? mib << 20 : default_bytes;
  return std::max<std::size_t>(1, bytes / (8 * fft_points()));
}

std::size_t Size::fft_points() const {  // each axis at most kMaxCount: the product cannot wrap
  const std::size_t p = x * std::max<std::size_t>(y, 1);
  return p > kMaxCount ? p : p * std::max<std::size_t>(z, 1);
}

std::vector<std::size_t> Size::fft_shape() const {
  std::vector<std::size_t> s{x};
  if (y != 0) s.push_back(y);
  if (z != 0) s.push_back(z);
  return s;
}

std::string size_grammar(const std::string& routine) {
  const std::string family = family_of(routine);
  return family.empty() ? std::string() : grammar_of(family).help;
}

}  // namespace clforge::bench
