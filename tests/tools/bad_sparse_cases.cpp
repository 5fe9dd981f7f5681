// Bad sparse input for `treesim sparse show`: encodings, matrix files and storage files that each
// break one rule, all ending in one line and exit status 2.
#include <string>

#include "tests/test_support.h"
#include "tests/tools/bad_input_cases.h"

namespace treesim::testing {
namespace {

BadInput encoding(std::string name, std::string text, std::string fragment) {
  return {"SparseEncoding" + name,
          {"sparse", "show", "@D/a.mtx", "--encoding", std::move(text)},
          {{"a.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n"}},
          std::move(fragment)};
}

BadInput mtx(std::string name, std::string text, std::string fragment) {
  return {
      "SparseMtx" + name, {"sparse", "show", "@D/a.mtx"}, {{"a.mtx", std::move(text)}}, std::move(fragment)};
}

// A valid CSR storage file of the 2×3 matrix [1 0 2; 0 0 3], with `from` replaced by `to`.
BadInput storage(std::string name, const std::string& from, const std::string& to, std::string fragment) {
  std::string json =
      R"({"encoding": "csr", "shape": [2, 3], "levels": [{"positions": [], "coordinates": []},)"
      R"( {"positions": [0, 2, 3], "coordinates": [0, 2, 2]}], "values": [1, 2, 3]})";
  json.replace(json.find(from), from.size(), to);
  return {"SparseStorage" + name, {"sparse", "show", "@D/a.json"}, {{"a.json", json}}, std::move(fragment)};
}

}  // namespace

std::vector<BadInput> sparse_cases() {
  const std::string hdr = "%%MatrixMarket matrix coordinate real general\n";
  return {
      encoding("UnknownLevelType", "(i, j) -> (i : dense, j : compresed)",
               "--encoding: encoding: unknown level type 'compresed'"),
      encoding("UnknownDimension", "(i, j) -> (i : dense, k : compressed)",
               "unknown dimension 'k' (column 23)"),
      encoding("NGreaterThanM", "(i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : block5_4)",
               "expected n <= m in n_out_of_m"),
      encoding("NOutOfMNotLast", "(i, j) -> (j mod 4 : block2_4, i : dense, j floordiv 4 : dense)",
               "expected n_out_of_m to be the last level type"),
      encoding("SingletonAfterUnique", "(i, j) -> (i : compressed, j : singleton)",
               "expected a nonunique level before a singleton level"),
      encoding("PosWidth12", "map = (i, j) -> (i : dense, j : compressed), posWidth = 12",
               "expected posWidth to be 0, 8, 16, 32 or 64, got 12"),
      encoding("Unrecoverable", "(i, j) -> (i : dense, j floordiv 2 : compressed)",
               "dimension 'j' cannot be recovered"),
      encoding("Unclosed", "#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed)",
               "expected '}'"),
      encoding("Empty", "", "expected a field"),
      encoding("ControlCharacterIsEscaped", "csr\x01", "unexpected character '\\x01'"),
      {"SparseTwoFourBlockTooFull",
       {"sparse", "show", "@D/a.mtx", "--encoding", "2:4"},
       {{"a.mtx", hdr + "1 4 3\n1 1 1\n1 2 2\n1 3 3\n"}},
       "level 2: block 0 holds 3 nonzeros, more than the 2 of 2:4"},
      {"SparseCoordinatePastCrdWidth",
       {"sparse", "show", "@D/a.mtx", "--encoding",
        "map = (i, j) -> (i : dense, j : compressed), crdWidth = 8"},
       {{"a.mtx", hdr + "1 300 1\n1 300 1\n"}},
       "level 1 coordinates: 299 does not fit 8 bits"},
      {"SparseWrongMtxFromR",
       {"sparse", "show", data_path("sparse/wrong.mtx")},
       {},
       "wrong.mtx:3: expected a row index 1..2, got '0'"},
      mtx("Truncated", hdr + "3 3 3\n1 1 1.0\n",
          "a.mtx:3: expected 3 entries, got 1 before the end of the file"),
      mtx("NoBanner", "3 3 3\n", "a.mtx:1: expected the banner"),
      mtx("Complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
          "complex is not supported"),
      mtx("ColumnOutOfRange", hdr + "2 2 1\n1 3 1\n", "a.mtx:3: expected a column index 1..2, got '3'"),
      mtx("ValueNotANumber", hdr + "2 2 1\n1 1 abc\n", "a.mtx:3: expected a real value, got 'abc'"),
      mtx("AboveDiagonalOfSymmetric", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n",
          "is above the diagonal"),
      mtx("TooManyEntries", hdr + "2 2 1\n1 1 1\n2 2 1\n", "a.mtx:4: expected the end of the file"),
      mtx("HugeSize", hdr + "99999999999 2 1\n1 1 1\n", "a.mtx:2: expected rows and columns"),
      {"SparseUnknownExtension",
       {"sparse", "show", "@D/a.txt"},
       {{"a.txt", "x"}},
       "a.txt: expected a matrix file"},
      {"SparseMissingFile", {"sparse", "show", "@D/none.mtx"}, {}, "none.mtx"},
      {"SparseGraphShortOfEdges",
       {"sparse", "show", "@D/g.graph"},
       {{"g.graph", "3 2\n2\n1\n\n"}},
       "g.graph:4: expected 2 x 2 = 4 adjacencies"},
      {"SparsePartitionUnknown",
       {"sparse", "partition", "@D/a.mtx", "--pes", "2", "--partition", "cols"},
       {{"a.mtx", hdr + "2 2 1\n1 1 1\n"}},
       "--partition: expected rows, nnz or 2d, got 'cols'"},
      {"SparsePartitionWithoutPes",
       {"sparse", "partition", "@D/a.mtx"},
       {{"a.mtx", hdr + "2 2 1\n1 1 1\n"}},
       "sparse partition: expected --machine FILE or --pes N"},
      {"SparsePartitionZeroPes",
       {"sparse", "partition", "@D/a.mtx", "--pes", "0"},
       {{"a.mtx", hdr + "2 2 1\n1 1 1\n"}},
       "--pes: expected 1..1048576, got 0"},
      storage("DecreasingPositions", "[0, 2, 3]", "[0, 3, 2]",
              "a.json: level 1 positions[2]: 2 is less than positions[1] = 3 (expected non-decreasing)"),
      storage("CoordinateOutOfRange", "[0, 2, 2]", "[0, 3, 2]",
              "a.json: level 1 coordinates[1]: 3 is out of range (level size 3)"),
      storage("UnsortedCoordinates", "[0, 2, 2]", "[2, 0, 2]", "a.json: level 1 coordinates[1]: 0 follows 2"),
      storage("NegativeCoordinate", "[0, 2, 2]", "[0, -2, 2]",
              "a.json: levels[1].coordinates[1]: expected a non-negative integer"),
      storage("MissingValues", R"(, "values": [1, 2, 3])", "", "a.json: values: missing"),
      storage("ValuesShort", "[1, 2, 3]", "[1, 2]", "a.json: values: expected 3 entries"),
      storage("BadEncoding", R"("csr")", R"("csx")",
              "a.json: encoding: encoding: unknown field or encoding name 'csx'"),
      storage("NotJson", "{", "[", "a.json: expected a JSON storage file"),
      // A header may not declare more rows or columns than its entries could use: each command
      // keeps a few words per row and column, so a 60-byte file would ask for gigabytes.
      mtx("DeclaresMoreRowsThanItsEntriesUse", hdr + "2147483647 2147483647 1\n1 1 1\n",
          "a.mtx:2: 2147483647×2147483647 with 1 entries: expected at most 1048576 rows and columns"),
      {"SpmmOfAMatrixDeclaring2To31Rows",
       {"run", "spmm", "--matrix", "@D/a.mtx", "--n", "4", "--machine", "@M"},
       {{"a.mtx", hdr + "2147483647 2147483647 1\n1 1 1\n"}},
       "--matrix: @D/a.mtx:2: 2147483647×2147483647 with 1 entries"},
      {"TuneSpmvOfAMatrixDeclaring2To31Rows",
       {"tune", "spmv", "--matrix", "@D/a.mtx", "--machine", "@M"},
       {{"a.mtx", hdr + "2147483647 2147483647 1\n1 1 1\n"}},
       "@D/a.mtx:2: 2147483647×2147483647 with 1 entries"},
      {"PartitionOfAMatrixDeclaring2To31Rows",
       {"sparse", "partition", "@D/a.mtx", "--pes", "4"},
       {{"a.mtx", hdr + "2147483647 2147483647 1\n1 1 1\n"}},
       "@D/a.mtx:2: 2147483647×2147483647 with 1 entries"},
      {"HarwellBoeingDeclaring2To31Rows",
       {"sparse", "show", "@D/a.rua"},
       {{"a.rua",
         "title                                                                   key\n"
         "             3             1             1             1\n"
         "RUA                2147483647             1             1             0\n"
         "(2I5)           (1I5)           (1E15.8)\n"
         "    1    2\n    1\n 1.00000000E+00\n"}},
       "2147483647×1 with 1 entries: expected at most 1048576 rows and columns"},
      {"MetisDeclaring2To26Edges",
       {"sparse", "show", "@D/a.graph"},
       {{"a.graph", "1 67108864\n\n"}},
       "@D/a.graph"},
      // spmv has x and y, not B and C, and no --n: the option that makes them too large is named.
      {"SpmvVectorsPastTheDram",
       {"run", "spmv", "--rows", "1", "--cols", "2147483647", "--nnz-per-row", "1", "--machine", "@M"},
       {},
       "--cols: x and y of a 1×2147483647 A need 2147483647 bytes each, more than the machine's "
       "1073741824-byte DRAM"},
      {"SpmvOfAFileVectorsPastTheDram",
       {"run", "spmv", "--matrix", "@D/a.mtx", "--machine", "@D/m.yaml"},
       {{"a.mtx", hdr + "1 1000000 1\n1 1 1\n"}, {"m.yaml", mini_with({{"bytes: 1GiB", "bytes: 64KiB"}})}},
       "--matrix: x and y of a 1×1000000 A need 1000000 bytes each"},
  };
}

}  // namespace treesim::testing
