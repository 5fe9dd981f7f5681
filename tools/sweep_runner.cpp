#include "tools/sweep_runner.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "sim/core/echo.h"
#include "sim/io/atomic_file.h"
#include "sim/machine/machine_file.h"
#include "tools/cli.h"
#include "tools/sweep_results.h"

namespace treesim::tools {
namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop = 0;
void on_stop(int) { g_stop = 1; }

// SIGINT/SIGTERM set a flag (and interrupt waitpid) while the runner is running; restored after.
class StopSignals {
 public:
  StopSignals() {
    g_stop = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

std::string self_exe() {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw CliError("sweep: cannot find the treesim binary (/proc/self/exe)", 1);
  return p.string();
}

// The last non-empty line the child wrote to stderr, without the `treesim: ` prefix.
std::string last_error_line(const std::string& path) {
  std::string text;
  try {
    text = io::read_file(path);
  } catch (const std::runtime_error&) {
  }
  std::string line;
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = text.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    line = text.substr(start, end - start);
    if (!line.empty()) break;
    end = start > 0 ? start - 1 : 0;
  }
  if (line.rfind("treesim: ", 0) == 0) line = line.substr(9);
  return core::echo(line, 1000);
}

struct Running {
  const SweepPoint* point;
  std::string err_path;
};

class Progress {
 public:
  Progress(std::size_t total, bool bar) : total_(total), bar_(bar), start_(Clock::now()) {}
  void point_done(std::size_t index, std::size_t width, const PointResult& r) {
    ++done_;
    if (r.status != "ok") ++failed_;
    if (bar_) {
      draw();
      if (r.status != "ok") {
        std::fprintf(stderr, "\r\033[Kpoint %0*zu failed: %s\n", static_cast<int>(width), index,
                     r.error.c_str());
        draw();
      }
      return;
    }
    const std::string what = r.status == "ok" ? fmt::format("ok, {} cycles", r.fields.at("cycles"))
                                              : fmt::format("FAILED: {}", r.error);
    std::fprintf(stderr, "[%zu/%zu] point %0*zu %s\n", done_, total_, static_cast<int>(width), index,
                 what.c_str());
  }
  void finish() {
    if (bar_ && total_ > 0) std::fprintf(stderr, "\n");
  }
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

 private:
  void draw() {
    constexpr std::size_t kWidth = 30;
    const std::size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
    const double per_point = done_ ? seconds() / static_cast<double>(done_) : 0;
    const auto eta = static_cast<long>(per_point * static_cast<double>(total_ - done_) + 0.5);
    std::fprintf(stderr, "\r\033[K[%s%s] %zu/%zu points, %zu failed, ETA %ld:%02ld",
                 std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(), done_, total_,
                 failed_, eta / 60, eta % 60);
    std::fflush(stderr);
  }
  std::size_t total_, done_ = 0, failed_ = 0;
  bool bar_;
  Clock::time_point start_;
};

// Writes the point's machine file and starts `treesim run` on it; the child's stdout goes nowhere
// and its stderr to a file, whose last line is the point's error if it fails.
pid_t launch(const SweepSpec& spec, const SweepPoint& point, std::size_t all, const std::string& dir,
             const std::string& exe, std::string& err_path, std::string& setup_error) {
  std::string machine_path = spec.machine_path;
  bool machine_axes = false;
  for (const SweepAxis& a : spec.axes) machine_axes |= a.machine;
  if (machine_axes) {
    machine_path = point_file(dir, point.index, all, ".yaml");
    const std::string yaml = point_machine_yaml(spec, point, setup_error);
    if (!setup_error.empty()) return -1;
    io::write_file_atomically(machine_path, yaml);
  }
  std::vector<std::string> args{exe, "run"};
  for (std::string& a : point_run_args(spec, point)) args.push_back(std::move(a));
  for (const std::string& a : {std::string("--machine"), machine_path, std::string("--report"),
                               point_file(dir, point.index, all, ".json"), std::string("-q")})
    args.push_back(a);
  err_path = point_file(dir, point.index, all, ".stderr");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw CliError(fmt::format("sweep: cannot start a process ({})", std::strerror(errno)), 1);
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_RDWR);
    const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null_fd >= 0) {
      dup2(null_fd, 0);
      dup2(null_fd, 1);
    }
    if (err_fd >= 0) dup2(err_fd, 2);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "treesim: sweep: cannot run %s (%s)\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  return pid;
}

void remove_temporaries(const std::string& folder, pid_t pid) {
  const std::string mark = fmt::format(".treesim-{}-", pid);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 1 && name[0] == '.' && name.find(mark) != std::string::npos)
      std::filesystem::remove(entry.path(), ec);
  }
}

PointResult finished(const SweepSpec& spec, const SweepPoint& point, std::size_t all, const std::string& dir,
                     int status, const std::string& err_path) {
  PointResult r;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    const std::string report_path = point_file(dir, point.index, all, ".json");
    try {
      const nlohmann::json report = nlohmann::json::parse(io::read_file(report_path));
      std::optional<machine::MachineConfig> m;
      std::string error;
      try {
        m = machine::parse_machine_yaml(point_machine_yaml(spec, point, error), spec.machine_path);
      } catch (const std::exception&) {
      }
      r = result_from_report(report, m ? &*m : nullptr);
    } catch (const std::exception& e) {
      r.status = "failed";
      r.error = fmt::format("{}: no readable report ({})", report_path, core::echo(e.what(), 200));
    }
  } else {
    r.status = "failed";
    r.error = last_error_line(err_path);
    if (r.error.empty()) r.error = fmt::format("exit status {}", WEXITSTATUS(status));
  }
  std::remove(err_path.c_str());
  return r;
}

}  // namespace

std::size_t available_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<std::size_t>(CPU_COUNT(&set));
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<std::size_t>(n) : 1;
}

RunnerCounts run_points(const SweepSpec& spec, const std::vector<SweepPoint>& points, std::size_t all,
                        const RunnerOptions& options) {
  RunnerCounts counts;
  counts.total = points.size();
  std::vector<const SweepPoint*> todo;
  for (const SweepPoint& p : points) {
    const std::optional<PointResult> done =
        read_record(point_file(options.dir, p.index, all, ".result.json"));
    if (done && !(options.retry_failed && done->status == "failed"))
      ++counts.skipped;
    else
      todo.push_back(&p);
  }
  const std::size_t width = point_digits(all);
  std::fprintf(stderr, "sweep: %zu points, %zu already done, %zu to run, %zu at a time\n", counts.total,
               counts.skipped, todo.size(), options.jobs);
  const std::string exe = self_exe();
  StopSignals signals;
  Progress progress(todo.size(), options.progress_bar);
  std::map<pid_t, Running> running;
  std::size_t next = 0;
  while ((next < todo.size() && !g_stop) || !running.empty()) {
    while (!g_stop && next < todo.size() && running.size() < options.jobs) {
      const SweepPoint& p = *todo[next++];
      std::string err_path, setup_error;
      const pid_t pid = launch(spec, p, all, options.dir, exe, err_path, setup_error);
      if (pid < 0) {
        PointResult r{"failed", setup_error, {}};
        write_record(point_file(options.dir, p.index, all, ".result.json"), r);
        ++counts.failed;
        progress.point_done(p.index, width, r);
        continue;
      }
      running[pid] = Running{&p, err_path};
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) {
        if (g_stop)
          for (const auto& entry : running) kill(entry.first, SIGTERM);
        continue;
      }
      throw CliError(fmt::format("sweep: waitpid failed ({})", std::strerror(errno)), 1);
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const Running job = it->second;
    running.erase(it);
    if (WIFSIGNALED(status) || g_stop) {
      // Stopped, not failed: no record, so a re-run runs it again. A child killed while writing
      // leaves its output temporaries (tools/output_set.cpp names them .NAME.treesim-PID-...).
      std::remove(job.err_path.c_str());
      remove_temporaries(options.dir + "/points", pid);
      if (!g_stop) {
        ++counts.lost;
        std::fprintf(stderr, "%spoint %0*zu killed by signal %d (not recorded: a re-run runs it again)\n",
                     options.progress_bar ? "\r\033[K" : "", static_cast<int>(width), job.point->index,
                     WTERMSIG(status));
      }
      continue;
    }
    const PointResult r = finished(spec, *job.point, all, options.dir, status, job.err_path);
    write_record(point_file(options.dir, job.point->index, all, ".result.json"), r);
    ++(r.status == "ok" ? counts.ok : counts.failed);
    progress.point_done(job.point->index, width, r);
  }
  progress.finish();
  counts.interrupted = g_stop != 0;
  return counts;
}

}  // namespace treesim::tools
