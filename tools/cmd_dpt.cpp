// `treesim dpt`: the DPT ternary codec from the command line: the table, single bytes, and packing
// .npy ternary tensors into .dpt files and back.
#include <fmt/format.h>

#include <cctype>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "sim/core/echo.h"
#include "sim/io/npy.h"
#include "sim/numeric/dpt.h"
#include "sim/numeric/dpt_file.h"
#include "sim/numeric/ternary_tensor.h"
#include "tools/cli.h"
#include "tools/options.h"
#include "tools/output_set.h"

namespace treesim::tools {
namespace {

using numeric::Trits5;

// Library errors caused by the user's input become one-line CliErrors (exit status 2).
template <typename F>
void as_cli_errors(F&& f) {
  try {
    f();
  } catch (const numeric::TernaryError& e) {
    throw CliError(e.what());
  } catch (const numeric::DptFileError& e) {
    throw CliError(e.what());
  } catch (const io::NpyError& e) {
    throw CliError(e.what());
  } catch (const std::invalid_argument& e) {
    throw CliError(e.what());
  }
}

std::string hex(std::uint8_t b) { return fmt::format("0x{:02X}", b); }

std::string table_csv() {
  std::string out = "value,trits,byte\n";
  for (int v = 0; v < numeric::kDptValues; ++v) {
    const Trits5 t = numeric::value_trits(v);
    out += fmt::format("{},{},{}\n", v, numeric::trits_string(t), hex(numeric::dpt_encode(t)));
  }
  return out;
}

// "00022": five digits 0..2, most significant (t4) first.
Trits5 parse_trits(const std::string& text) {
  bool ok = text.size() == 5;
  for (char c : text) ok = ok && c >= '0' && c <= '2';
  if (!ok)
    throw CliError(
        fmt::format("dpt encode: expected 5 trits (digits 0, 1 or 2, most significant first, e.g. 00022), "
                    "got '{}'",
                    core::echo(text)));
  Trits5 t{};
  for (int i = 0; i < 5; ++i) t[4 - i] = static_cast<std::uint8_t>(text[i] - '0');
  return t;
}

// "0x88", "0X88" or "136".
std::uint8_t parse_byte(const std::string& text) {
  const bool is_hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = is_hex ? text.substr(2) : text;
  bool ok = !digits.empty() && digits.size() <= 3;
  for (char c : digits)
    ok = ok && (is_hex ? std::isxdigit(static_cast<unsigned char>(c))
                       : std::isdigit(static_cast<unsigned char>(c)));
  const unsigned long value = ok ? std::stoul(digits, nullptr, is_hex ? 16 : 10) : 0;
  if (!ok || value > 255)
    throw CliError(
        fmt::format("dpt decode: expected a byte (0x00..0xFF or 0..255), got '{}'", core::echo(text)));
  return static_cast<std::uint8_t>(value);
}

std::string code_json(std::uint8_t byte, const Trits5& t, bool unused) {
  nlohmann::ordered_json j;
  j["value"] = numeric::trits_value(t);
  j["trits"] = numeric::trits_string(t);
  j["byte"] = hex(byte);
  if (unused) j["unused_code"] = true;
  return j.dump() + "\n";
}

// numpy-style axis: −ndim..ndim−1; the default (nullopt) is the last axis.
std::size_t resolve_axis(const std::optional<long>& axis, std::size_t ndim) {
  const long n = static_cast<long>(ndim);
  const long a = axis.value_or(n - 1);
  if (ndim == 0 || a < -n || a >= n)
    throw CliError(
        fmt::format("dpt pack: --axis {} is out of range for a tensor with {} dimension(s)", a, ndim));
  return static_cast<std::size_t>(a < 0 ? a + n : a);
}

void add_table(CLI::App& dpt) {
  auto* cmd = dpt.add_subcommand("table", "Print the 243 DPT codes as CSV (value,trits,byte)");
  cmd->callback([] { emit(table_csv()); });
}

void add_encode(CLI::App& dpt) {
  auto* cmd =
      dpt.add_subcommand("encode", "Encode 5 trits (most significant first, e.g. 00022) into a DPT byte");
  auto trits = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("TRITS", *trits, "Five digits 0..2, most significant first")->required();
  cmd->add_flag("--json", *json, "Print {\"value\", \"trits\", \"byte\"} as JSON");
  cmd->callback([trits, json] {
    const Trits5 t = parse_trits(*trits);
    const std::uint8_t b = numeric::dpt_encode(t);
    emit(*json ? code_json(b, t, false) : hex(b) + "\n");
  });
}

void add_decode(CLI::App& dpt) {
  auto* cmd = dpt.add_subcommand("decode",
                                 "Decode a DPT byte (0xNN or decimal) into 5 trits, most significant first");
  auto byte = std::make_shared<std::string>();
  auto strict = std::make_shared<bool>(false);
  auto json = std::make_shared<bool>(false);
  cmd->add_option("BYTE", *byte, "The byte, e.g. 0x88")->required();
  cmd->add_flag("--strict", *strict,
                "Reject the 13 unused codes instead of decoding them as the hardware does");
  cmd->add_flag("--json", *json, "Print {\"value\", \"trits\", \"byte\"} as JSON");
  cmd->callback([byte, strict, json] {
    const std::uint8_t b = parse_byte(*byte);
    as_cli_errors([&] {
      if (*strict) numeric::validate_dpt(&b, 1, "dpt decode");
    });
    const Trits5 t = numeric::dpt_decode(b);
    const bool unused = numeric::dpt_is_unused_code(b);
    if (unused && !*json)
      std::cerr << fmt::format("treesim: note: {} is an unused code; decoded as the hardware does (as {})\n",
                               hex(b), hex(numeric::dpt_encode(t)));
    emit(*json ? code_json(b, t, unused) : numeric::trits_string(t) + "\n");
  });
}

void add_pack(CLI::App& dpt) {
  auto* cmd = dpt.add_subcommand("pack", "Pack a ternary .npy tensor (int8 values -1..1) into a .dpt file");
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto axis_value = std::make_shared<long>(-1);
  cmd->add_option("--in", *in, "Input .npy (int8, values -1, 0, 1)")->required();
  cmd->add_option("--out", *out, "Output .dpt file")->required();
  CLI::Option* axis_option =
      cmd->add_option(
             "--axis", *axis_value,
             "Axis to pack 5 weights per byte along (default: the last; negative counts from the end)")
          ->check(signed_in(-64, 63));
  cmd->callback([in, out, axis_value, axis_option] {
    const std::optional<long> axis =
        axis_option->count() > 0 ? std::optional<long>(*axis_value) : std::nullopt;
    OutputSet outputs;
    outputs.stage(*out, "--out");
    as_cli_errors([&] {
      const io::NpyArray a = io::read_npy(*in);
      const std::vector<std::int8_t> w = io::npy_values<std::int8_t>(a, *in);
      const std::size_t ax = resolve_axis(axis, a.shape.size());
      numeric::PackedTernary p;
      try {
        p = numeric::pack_ternary(w, a.shape, ax);
      } catch (const numeric::TernaryError& e) {
        throw CliError(*in + ": " + e.what());
      }
      numeric::write_dpt_file(outputs.stage(*out, "--out"), p);
      outputs.commit();
      emit(fmt::format("packed {} weights {} along axis {} into {} bytes: {}\n", w.size(),
                       io::shape_string(a.shape), ax, p.bytes.size(), *out));
    });
  });
}

void add_unpack(CLI::App& dpt) {
  auto* cmd =
      dpt.add_subcommand("unpack", "Unpack a .dpt file into a ternary .npy tensor (int8 values -1..1)");
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("--in", *in, "Input .dpt file")->required();
  cmd->add_option("--out", *out, "Output .npy (int8)")->required();
  cmd->callback([in, out] {
    OutputSet outputs;
    outputs.stage(*out, "--out");
    as_cli_errors([&] {
      const numeric::PackedTernary p = numeric::read_dpt_file(*in);
      std::vector<std::int8_t> w;
      try {
        w = numeric::unpack_ternary(p, true);
      } catch (const numeric::TernaryError& e) {
        throw CliError(*in + ": " + e.what());
      }
      io::write_npy(outputs.stage(*out, "--out"), io::make_npy(p.shape, w));
      outputs.commit();
      emit(fmt::format("unpacked {} weights {} from axis {}: {}\n", w.size(), io::shape_string(p.shape),
                       p.axis, *out));
    });
  });
}

}  // namespace

void add_dpt_command(CLI::App& app) {
  auto* dpt = app.add_subcommand("dpt", "DPT (densely packed ternary): table, encode, decode, pack, unpack");
  dpt->require_subcommand(1);
  add_table(*dpt);
  add_encode(*dpt);
  add_decode(*dpt);
  add_pack(*dpt);
  add_unpack(*dpt);
}

}  // namespace treesim::tools
