// The command line's use of the size grammar (bench/sizes.hpp) and its output folders (see args.hpp).
#include "tools/args.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "bench/fft_peers.hpp"
#include "clforge/errors.hpp"
#include "runtime/files.hpp"
#include "runtime/strings.hpp"

namespace clforge::cli {

Size parse_size(const std::string& routine, const std::string& text, bool tune) {
  Size s;
  try {
    s = bench::parse_size(routine, text);
  } catch (const InvalidArgument& e) {
    throw UsageError(e.what());
  }
  if (s.sigma > 0 && !tune)
    throw UsageError("size '" + text + "': sigma is a key of the tuner's blur sizes (here the sigma is an option)");
  return s;
}

std::string tune_size(const Size& s) {
  const auto n = [](std::size_t v) { return std::to_string(v); };
  if (s.routine == "transpose") return n(s.x) + "x" + n(s.y) + ":" + n(s.elem);
  if (s.routine == "sgemm") {
    return n(s.x) + "x" + n(s.y) + "x" + n(s.z) + ":" + (s.trans_a ? 'T' : 'N') + (s.trans_b ? 'T' : 'N') +
           (s.batch != 0 ? "@" + n(s.batch) : "");
  }
  if (s.routine == "fft") {
    if (s.y != 0) throw UsageError("size '" + s.text() + "': the tuner tunes 1-D FFTs (its 2-D, 3-D passes are 1-D)");
    // The batch bench fft times (64 MiB of data without batch or mib; real input: of its
    // spectrum); bench times no interleaved batch, which takes as many transforms as contiguous.
    Size z = s;
    z.interleaved = false;
    const std::size_t batch = bench::FftCase::of(z, 0).batch;
    return n(s.x) + "@" + n(batch) + (s.interleaved ? ":t" : s.real ? ":r" : "");
  }
  const std::string text = s.text();  // blur: WxH[,channels=C][,sigma=S]
  const auto sigma = text.find(",sigma=");
  return n(s.x) + "x" + n(s.y) + ":" + n(s.channels) + (sigma == std::string::npos ? "" : text.substr(sigma));
}

std::string bench_size(const Size& s) {
  const auto n = [](std::size_t v) { return std::to_string(v); };
  if (s.routine == "transpose") {
    if (s.elem != 4)
      throw UsageError("size '" + s.text() + "': the transpose benchmark measures 4-byte elements (elem=4)");
    return n(s.x) + "x" + n(s.y);
  }
  if (s.routine == "sgemm") {
    std::string t = n(s.x) + "x" + n(s.y) + "x" + n(s.z);
    if (s.trans_a || s.trans_b) t += std::string(":") + (s.trans_a ? 'T' : 'N') + (s.trans_b ? 'T' : 'N');
    return t + (s.batch != 0 ? "@" + n(s.batch) : "");
  }
  if (s.routine == "fft") {
    if (s.interleaved)
      throw UsageError("size '" + s.text() + "': the FFT benchmark measures contiguous batches (no layout key)");
    return s.text();
  }
  return n(s.x) + "x" + n(s.y);
}

std::string bench_size_of_tuned(const std::string& family, const std::string& size, std::size_t& channels,
                                double& sigma) {
  const auto colon = size.find(':');
  const std::string head = size.substr(0, colon), tail = colon == std::string::npos ? "" : size.substr(colon + 1);
  if (family == "fft") {  // N[@B][:t|:r]
    if (tail == "t") return "";
    const auto at = head.find('@');
    return (at == std::string::npos ? head : head.substr(0, at) + ",batch=" + head.substr(at + 1)) +
           (tail == "r" ? ",real" : "");
  }
  if (family == "transpose") return tail.empty() || tail == "4" ? head : "";
  if (family == "blur") {  // WxH[:C][,sigma=S]: the bench size WxH
    const auto key = size.find(",sigma=");
    sigma = key == std::string::npos ? 0 : std::stod(size.substr(key + 7));
    const std::string c = tail.substr(0, tail.find(','));
    channels = c.empty() ? 1 : std::stoul(c);
    return head.substr(0, head.find(','));
  }
  return tail.rfind("NN", 0) == 0 ? head + tail.substr(2) : size;  // sgemm: ":NN" is the default
}

Size parse_routine_size(const std::string& text, bool tune) {
  const auto colon = text.find(':');
  const std::string routine = colon == std::string::npos ? "" : text.substr(0, colon);
  const auto& all = routine_names();
  if (std::find(all.begin(), all.end(), routine) == all.end())
    throw UsageError("'" + text + "' is not ROUTINE:SIZE with ROUTINE one of transpose, sgemm, fft, blur" +
                     " (e.g. transpose:4096, sgemm:1024,trans=NT, fft:1024,batch=64, blur:1024x768)");
  return parse_size(routine, text.substr(colon + 1), tune);
}

void check_output_folder_arg(const std::string& path) {
  if (path.empty()) throw UsageError("--out: empty folder name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
    throw UsageError("--out " + path + ": exists and is not a folder (--out names the folder the results go to)");
}

void make_output_folder(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;
  if (!detail::make_dirs(path)) throw Error("cannot create the output folder " + path);
}

}  // namespace clforge::cli
