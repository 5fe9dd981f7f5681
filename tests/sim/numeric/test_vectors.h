// Reading the test vectors in tests/data (quant/vectors.json and the CSV tables; origins in
// tests/data/README.md).
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {

inline const nlohmann::json& quant_vectors() {
  static const nlohmann::json j = [] {
    std::ifstream in(data_path("quant/vectors.json"));
    if (!in) throw std::runtime_error("cannot open " + data_path("quant/vectors.json"));
    return nlohmann::json::parse(in);
  }();
  return j;
}

// A CSV file with a header row: each row maps column name → text. Only the last column may hold
// commas (it is read as the rest of the line, quotes included).
inline std::vector<std::map<std::string, std::string>> read_csv(const std::string& relative) {
  std::ifstream in(data_path(relative));
  if (!in) throw std::runtime_error("cannot open " + data_path(relative));
  // The files have CRLF line ends.
  const auto chomp = [](std::string& line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
  };
  const auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
  };
  std::string line;
  std::getline(in, line);
  chomp(line);
  const std::vector<std::string> header = split(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    chomp(line);
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = i < cells.size() ? cells[i] : "";
    // A quoted last column (a free-text tag) may contain commas: keep the rest of the line there.
    for (std::size_t i = header.size(); i < cells.size(); ++i) row[header.back()] += "," + cells[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace treesim::testing
