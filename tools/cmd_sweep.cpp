// `treesim sweep SPEC --out DIR`: architecture exploration. Expands a spec (sweep_spec.h) into
// points, runs each as its own process (sweep_runner.h), records each result as it ends and builds
// DIR/results.csv (sweep_results.h); or writes a Slurm job array (sweep_slurm.h) and collects it.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "sim/core/echo.h"
#include "sim/io/atomic_file.h"
#include "tools/cli.h"
#include "tools/sweep_results.h"
#include "tools/sweep_runner.h"
#include "tools/sweep_slurm.h"
#include "tools/sweep_spec.h"

namespace treesim::tools {
namespace {

struct SweepCommand {
  std::string spec, out, collect;
  std::size_t jobs = 0, chunk_size = 10, array_max = 0;
  long only_chunk = -1;
  bool list = false, slurm = false, no_submit = false, retry_failed = false;
  std::string partition, time;
};

std::string absolute(const std::string& path) {
  return std::filesystem::absolute(path).lexically_normal().string();
}

bool on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return false;
  std::string p = path;
  std::size_t i = 0;
  while (i <= p.size()) {
    std::size_t end = p.find(':', i);
    if (end == std::string::npos) end = p.size();
    const std::string candidate = (end > i ? p.substr(i, end - i) : ".") + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    i = end + 1;
  }
  return false;
}

void print_list(const SweepSpec& spec, const std::vector<SweepPoint>& points) {
  std::string out = "index";
  for (const SweepAxis& a : spec.axes) out += "," + csv_field(a.path);
  out += "\n";
  for (const SweepPoint& p : points) {
    out += std::to_string(p.index);
    for (const std::string& v : p.values) out += "," + csv_field(v);
    out += "\n";
  }
  std::cout << out;
}

void submit_slurm(const SweepCommand& c, std::size_t points) {
  const std::string dir = absolute(c.out);
  const std::size_t chunks = (points + c.chunk_size - 1) / c.chunk_size;
  std::error_code ec;
  std::filesystem::create_directories(dir + "/slurm", ec);
  if (ec) throw CliError(fmt::format("{}: cannot create the folder ({})", core::echo(dir, 0), ec.message()));
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw CliError("sweep: cannot find the treesim binary (/proc/self/exe)", 1);
  const std::string script = slurm_script(exe, absolute(c.spec), dir, chunks, c.chunk_size,
                                          SlurmOptions{c.partition, c.array_max, c.time});
  const std::string script_path = dir + "/sweep.sbatch";
  emit(script, script_path);
  if (c.no_submit || !on_path("sbatch")) {
    std::cout << script;
    std::cout << fmt::format("sweep: {}; submit {} with sbatch, then run: treesim sweep --collect {}\n",
                             c.no_submit ? "not submitted (--no-submit)" : "sbatch is not on PATH",
                             script_path, c.out);
    return;
  }
  const std::string command = fmt::format("sbatch --parsable '{}'", script_path);
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) throw CliError("sweep: cannot run sbatch", 1);
  std::string job;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe)) job += buffer;
  const int status = ::pclose(pipe);
  while (!job.empty() && (job.back() == '\n' || job.back() == '\r')) job.pop_back();
  if (status != 0) throw CliError(fmt::format("sweep: sbatch failed (exit status {}): {}", status, job), 1);
  std::cout << fmt::format(
      "sweep: submitted job {} ({} array tasks of up to {} points); when it ends: treesim "
      "sweep --collect {}\n",
      job, chunks, c.chunk_size, c.out);
}

std::string summary(const CollectCounts& k) {
  return fmt::format("{} ok, {} failed, {} missing", k.ok, k.failed, k.missing);
}

int collect_and_report(const std::string& dir, double seconds) {
  const CollectCounts k = collect(dir);
  std::cout << fmt::format("sweep: {} points: {}; results in {}/results.csv", k.ok + k.failed + k.missing,
                           summary(k), dir);
  if (seconds >= 0) std::cout << fmt::format(" ({:.1f} s)", seconds);
  std::cout << "\n";
  std::cout.flush();
  if (k.failed || k.missing)
    throw CliError(
        fmt::format("sweep: {} of {} points {}", k.failed + k.missing, k.ok + k.failed + k.missing,
                    k.missing ? "failed or did not run (run the sweep again to finish it)" : "failed"),
        1);
  return 0;
}

void run_sweep(const SweepCommand& c) {
  if (!c.collect.empty()) {
    if (!c.spec.empty() || !c.out.empty())
      throw CliError("sweep: --collect DIR takes no spec and no --out (it reads DIR/sweep.json)");
    collect_and_report(c.collect, -1);
    return;
  }
  if (c.spec.empty())
    throw CliError("sweep: name a spec (treesim sweep SPEC.yaml --out DIR) or --collect DIR");
  const SweepSpec spec = load_sweep_spec(c.spec);
  const std::vector<SweepPoint> points = expand(spec);
  if (c.list) {
    print_list(spec, points);
    return;
  }
  if (c.out.empty()) throw CliError("sweep: --out DIR is required (where results.csv and the reports go)");
  if (c.chunk_size == 0) throw CliError("--chunk-size: expected a positive number of points, got 0");
  if (c.slurm && c.retry_failed)
    throw CliError(
        "--retry-failed: run it locally (or with --only-chunk); a Slurm array runs what is not done");
  if (const std::optional<GridChange> change = save_or_check_plan(c.out, make_plan(spec, points))) {
    std::cout << fmt::format(
        "sweep: the grid changed since {}/sweep.json was written: {} point{} kept, {} new, {} no longer in "
        "the grid{}\n",
        c.out, change->kept, change->kept == 1 ? "" : "s", change->added, change->removed,
        change->removed ? fmt::format(" (their files moved to {}/removed)", c.out) : "");
    std::cout.flush();
  }
  if (c.slurm) {
    submit_slurm(c, points.size());
    return;
  }
  std::vector<SweepPoint> chosen = points;
  if (c.only_chunk >= 0) {
    const std::size_t chunks = (points.size() + c.chunk_size - 1) / c.chunk_size;
    if (static_cast<std::size_t>(c.only_chunk) >= chunks)
      throw CliError(fmt::format("--only-chunk: expected 0 to {} ({} points in chunks of {}), got {}",
                                 chunks - 1, points.size(), c.chunk_size, c.only_chunk));
    const std::size_t begin = static_cast<std::size_t>(c.only_chunk) * c.chunk_size;
    chosen.assign(
        points.begin() + static_cast<std::ptrdiff_t>(begin),
        points.begin() + static_cast<std::ptrdiff_t>(std::min(points.size(), begin + c.chunk_size)));
  }
  RunnerOptions options;
  options.dir = c.out;
  options.jobs = c.jobs ? c.jobs : available_cpus();
  options.progress_bar = ::isatty(STDERR_FILENO) != 0;
  options.retry_failed = c.retry_failed;
  const auto start = std::chrono::steady_clock::now();
  const RunnerCounts k = run_points(spec, chosen, points.size(), options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (k.interrupted)
    throw CliError(fmt::format("sweep: interrupted; {} points done this run; run the same command again to "
                               "finish (done points are skipped)",
                               k.ok + k.failed),
                   130);
  if (c.only_chunk >= 0) {
    std::cout << fmt::format("sweep: chunk {}: {} points: {} ok, {} failed, {} already done ({:.1f} s)\n",
                             c.only_chunk, k.total, k.ok, k.failed, k.skipped, seconds);
    if (k.failed || k.lost)
      throw CliError(fmt::format("sweep: chunk {}: {} points failed", c.only_chunk, k.failed + k.lost), 1);
    return;
  }
  collect_and_report(c.out, seconds);
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("sweep", "Run a kernel over a grid of machines and options (docs/sweeps.md)");
  auto c = std::make_shared<SweepCommand>();
  cmd->add_option("spec", c->spec, "Sweep spec (YAML): machine, kernel, options, grid, zip")
      ->type_name("SPEC");
  cmd->add_option("--out", c->out, "Folder of the results: results.csv, and each point's report in points/");
  cmd->add_option("--jobs,-j", c->jobs, "Points run at once (default: the CPUs this process may use)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
  cmd->add_flag("--list", c->list, "Print the points (CSV) and run nothing");
  cmd->add_flag("--retry-failed", c->retry_failed,
                "Run again the points that failed (done points are skipped otherwise)");
  cmd->add_option("--chunk-size", c->chunk_size, "Points per chunk (--only-chunk, --slurm)")->default_val(10);
  cmd->add_option("--only-chunk", c->only_chunk, "Run only chunk I (what each Slurm array task runs)")
      ->check(CLI::NonNegativeNumber)
      ->type_name("I");
  cmd->add_flag("--slurm", c->slurm,
                "Write DIR/sweep.sbatch (a job array) and submit it if sbatch is on PATH");
  cmd->add_flag("--no-submit", c->no_submit, "With --slurm: write and print the script, do not submit it");
  cmd->add_option("--partition", c->partition, "With --slurm: the partition");
  cmd->add_option("--array-max", c->array_max, "With --slurm: at most this many array tasks at once")
      ->type_name("K");
  cmd->add_option("--time", c->time, "With --slurm: time limit per task (sbatch --time)")->type_name("T");
  cmd->add_option("--collect", c->collect, "Merge the points' results of a sweep folder into DIR/results.csv")
      ->type_name("DIR");
  cmd->callback([c] { run_sweep(*c); });
}

}  // namespace treesim::tools
