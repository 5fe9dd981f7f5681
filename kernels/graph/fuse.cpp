#include "kernels/graph/fuse.h"

#include <map>
#include <set>

namespace treesim::graph {
namespace {

Attribute int_value(std::int64_t v) {
  Attribute a;
  a.kind = Attribute::Kind::kInt;
  a.i = v;
  return a;
}

class Fuser {
 public:
  explicit Fuser(const Model& m) : m_(m) {
    for (std::size_t i = 0; i < m.nodes.size(); ++i) {
      for (const std::string& out : m.nodes[i].outputs) producer_[out] = i;
      for (const std::string& in : m.nodes[i].inputs)
        if (!in.empty()) consumers_[in].push_back(i);
    }
    for (const ValueInfo& o : m.outputs) graph_outputs_.insert(o.name);
  }

  Fusion run() {
    std::map<std::size_t, Node> fused_at;  // the MatMul's / Gemm's index → the fused node
    for (std::size_t i = 0; i < m_.nodes.size(); ++i)
      if (removed_.count(i) == 0) {
        std::optional<Node> node = try_fuse(i);
        if (!node) node = try_fuse_pool(i);
        if (!node) node = try_fuse_add(i);
        if (node) fused_at[i] = std::move(*node);
      }
    // Dequantize nodes whose every consumer went.
    for (std::size_t i = 0; i < m_.nodes.size(); ++i) {
      const Node& n = m_.nodes[i];
      if (n.op_type != "DequantizeLinear" || n.outputs.size() != 1 || removed_.count(i) ||
          graph_outputs_.count(n.outputs[0]))
        continue;
      bool all = !consumers_[n.outputs[0]].empty();
      for (std::size_t c : consumers_[n.outputs[0]]) all = all && removed_.count(c);
      if (all) removed_.insert(i);
    }
    Fusion f;
    f.model = m_;
    f.model.nodes.clear();
    for (std::size_t i = 0; i < m_.nodes.size(); ++i) {
      if (auto it = fused_at.find(i); it != fused_at.end()) {
        f.model.nodes.push_back(it->second);
        ++f.fused;
      } else if (!removed_.count(i)) {
        f.model.nodes.push_back(m_.nodes[i]);
      }
    }
    return f;
  }

 private:
  // The node that makes `tensor` when it is `op`, else null.
  const Node* made_by(const std::string& tensor, const char* op) const {
    auto it = producer_.find(tensor);
    if (it == producer_.end() || m_.nodes[it->second].op_type != op) return nullptr;
    return &m_.nodes[it->second];
  }
  // The one node reading `tensor` when it is `op` with one output, reading it as its data input (input 0;
  // either of Add's), and the tensor is no graph output; else nullopt.
  std::optional<std::size_t> sole_consumer(const std::string& tensor, const char* op) const {
    if (graph_outputs_.count(tensor)) return std::nullopt;
    auto it = consumers_.find(tensor);
    if (it == consumers_.end() || it->second.size() != 1) return std::nullopt;
    const Node& c = m_.nodes[it->second[0]];
    if (c.op_type != op || c.outputs.size() != 1 || c.outputs[0].empty()) return std::nullopt;
    const bool add = std::string(op) == "Add";
    if (!(input(c, 0) == tensor || (add && input(c, 1) == tensor))) return std::nullopt;
    return it->second[0];
  }
  // Whether a DequantizeLinear's scales run along `axis` of a rank-2 tensor, or it has one scale (an
  // initializer with one element).
  bool scales_along(const Node& dq, std::int64_t axis) const {
    auto s = m_.initializers.find(input(dq, 1));
    if (s != m_.initializers.end() && s->second.count() == 1) return true;
    const std::int64_t a = int_attribute(dq, "axis").value_or(1);
    return a == axis || a == axis - 2;
  }
  // Whether a convolution's weight DequantizeLinear has one scale or one per filter (axis 0).
  bool scales_along_filters(const Node& dq) const {
    auto s = m_.initializers.find(input(dq, 1));
    if (s != m_.initializers.end() && s->second.count() == 1) return true;
    const std::int64_t a = int_attribute(dq, "axis").value_or(1);
    return a == 0 || a == -4;
  }
  static std::string input(const Node& n, std::size_t i) { return i < n.inputs.size() ? n.inputs[i] : ""; }
  // A fused node's `fused` attribute: the labels of the nodes it replaces.
  Attribute fused_from(const std::vector<std::size_t>& gone) const {
    Attribute labels;
    labels.kind = Attribute::Kind::kString;
    for (std::size_t g : gone) labels.s += (labels.s.empty() ? "" : ", ") + node_label(m_.nodes[g]);
    return labels;
  }

  std::optional<Node> try_fuse(std::size_t i) {
    const Node& mm = m_.nodes[i];
    const bool gemm = mm.op_type == "Gemm", conv = mm.op_type == "Conv";
    if (mm.op_type != "MatMul" && !gemm && !conv) return std::nullopt;
    if (mm.outputs.size() != 1 || mm.outputs[0].empty()) return std::nullopt;
    if (!mm.domain.empty() && mm.domain != "ai.onnx") return std::nullopt;
    if (gemm &&
        (int_attribute(mm, "transA").value_or(0) != 0 || float_attribute(mm, "alpha").value_or(1) != 1 ||
         float_attribute(mm, "beta").value_or(1) != 1))
      return std::nullopt;
    const Node* dq_a = made_by(input(mm, 0), "DequantizeLinear");
    const Node* dq_b = made_by(input(mm, 1), "DequantizeLinear");
    if (!dq_a || !dq_b) return std::nullopt;
    // b's scales must be per column: along axis 1 of K×N, or axis 0 of N×K (Gemm's transB); a
    // convolution's per output channel (axis 0 of M×C×R×S).
    const bool trans_b = gemm && int_attribute(mm, "transB").value_or(0) != 0;
    if (conv ? !scales_along_filters(*dq_b) : !scales_along(*dq_b, trans_b ? 0 : 1)) return std::nullopt;
    std::vector<std::size_t> gone{i};
    const Node* dq_bias = nullptr;
    std::string out = mm.outputs[0];
    if ((gemm || conv) && !input(mm, 2).empty()) {
      dq_bias = made_by(input(mm, 2), "DequantizeLinear");
      if (!dq_bias) return std::nullopt;
    }
    if (!gemm && !conv) {
      if (auto add = sole_consumer(out, "Add")) {
        const Node& a = m_.nodes[*add];
        const std::string other = input(a, 0) == out ? input(a, 1) : input(a, 0);
        dq_bias = made_by(other, "DequantizeLinear");
        if (!dq_bias) return std::nullopt;
        gone.push_back(*add);
        out = a.outputs[0];
      }
    }
    bool relu = false;
    const Node* clip = nullptr;
    if (auto r = sole_consumer(out, "Relu")) {
      relu = true;
      gone.push_back(*r);
      out = m_.nodes[*r].outputs[0];
    } else if (auto c = sole_consumer(out, "Clip")) {
      clip = &m_.nodes[*c];
      gone.push_back(*c);
      out = clip->outputs[0];
    }
    auto q = sole_consumer(out, "QuantizeLinear");
    if (!q) return std::nullopt;
    gone.push_back(*q);
    const Node& qn = m_.nodes[*q];
    Node f;
    f.name = mm.name;
    f.op_type = conv ? "QConv" : "QGemm";
    f.domain = "treesim";
    f.inputs = {input(*dq_a, 0),
                input(*dq_a, 1),
                input(*dq_a, 2),
                input(*dq_b, 0),
                input(*dq_b, 1),
                input(*dq_b, 2),
                input(qn, 1),
                input(qn, 2),
                "",
                "",
                "",
                "",
                ""};
    if (dq_bias) {
      f.inputs[8] = input(*dq_bias, 0);
      f.inputs[9] = input(*dq_bias, 1);
      f.inputs[10] = input(*dq_bias, 2);
    }
    f.outputs = {qn.outputs[0]};
    f.attributes["relu"] = int_value(relu ? 1 : 0);
    if (clip) {  // opset 11 on: min and max are inputs; before, attributes
      f.inputs[11] = input(*clip, 1);
      f.inputs[12] = input(*clip, 2);
      for (const char* bound : {"min", "max"})
        if (auto it = clip->attributes.find(bound); it != clip->attributes.end())
          f.attributes[std::string("clip_") + bound] = it->second;
    }
    if (conv) {  // the convolution's own attributes
      for (const auto& [name, value] : mm.attributes) f.attributes[name] = value;
    } else {
      f.attributes["transB"] = int_value(gemm ? int_attribute(mm, "transB").value_or(0) : 0);
    }
    f.attributes["fused"] = fused_from(gone);
    removed_.insert(gone.begin(), gone.end());
    return f;
  }

  // DequantizeLinear → MaxPool | AveragePool | GlobalAveragePool → QuantizeLinear, per-tensor: the pool
  // of the codes (QMaxPool, QAveragePool, QGlobalAveragePool; inputs x, x_scale, x_zero_point,
  // y_scale, y_zero_point; the pool's attributes).
  std::optional<Node> try_fuse_pool(std::size_t i) {
    const Node& pool = m_.nodes[i];
    if (pool.op_type != "MaxPool" && pool.op_type != "AveragePool" && pool.op_type != "GlobalAveragePool")
      return std::nullopt;
    if (!pool.domain.empty() && pool.domain != "ai.onnx") return std::nullopt;
    if (pool.outputs.size() != 1 || pool.outputs[0].empty()) return std::nullopt;
    const Node* dq = made_by(input(pool, 0), "DequantizeLinear");
    if (!dq) return std::nullopt;
    auto q = sole_consumer(pool.outputs[0], "QuantizeLinear");
    if (!q) return std::nullopt;
    const Node& qn = m_.nodes[*q];
    Node f;
    f.name = pool.name;
    f.op_type = "Q" + pool.op_type;
    f.domain = "treesim";
    f.inputs = {input(*dq, 0), input(*dq, 1), input(*dq, 2), input(qn, 1), input(qn, 2)};
    f.outputs = {qn.outputs[0]};
    f.attributes = pool.attributes;
    f.attributes["fused"] = fused_from({i, *q});
    removed_.insert({i, *q});
    return f;
  }

  // DequantizeLinear(a), DequantizeLinear(b) → Add [→ Relu] → QuantizeLinear: QAdd (inputs a, a_scale,
  // a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point; `relu`). A GEMM's bias Add went
  // with its GEMM before this is asked.
  std::optional<Node> try_fuse_add(std::size_t i) {
    const Node& add = m_.nodes[i];
    if (add.op_type != "Add" || (!add.domain.empty() && add.domain != "ai.onnx")) return std::nullopt;
    if (add.outputs.size() != 1 || add.outputs[0].empty()) return std::nullopt;
    const Node* dq_a = made_by(input(add, 0), "DequantizeLinear");
    const Node* dq_b = made_by(input(add, 1), "DequantizeLinear");
    if (!dq_a || !dq_b) return std::nullopt;
    std::vector<std::size_t> gone{i};
    std::string out = add.outputs[0];
    bool relu = false;
    if (auto r = sole_consumer(out, "Relu")) {
      relu = true;
      gone.push_back(*r);
      out = m_.nodes[*r].outputs[0];
    }
    auto q = sole_consumer(out, "QuantizeLinear");
    if (!q) return std::nullopt;
    gone.push_back(*q);
    const Node& qn = m_.nodes[*q];
    Node f;
    f.name = add.name;
    f.op_type = "QAdd";
    f.domain = "treesim";
    f.inputs = {input(*dq_a, 0), input(*dq_a, 1), input(*dq_a, 2), input(*dq_b, 0),
                input(*dq_b, 1), input(*dq_b, 2), input(qn, 1),    input(qn, 2)};
    f.outputs = {qn.outputs[0]};
    f.attributes["relu"] = int_value(relu ? 1 : 0);
    f.attributes["fused"] = fused_from(gone);
    removed_.insert(gone.begin(), gone.end());
    return f;
  }

  const Model& m_;
  std::map<std::string, std::size_t> producer_;
  std::map<std::string, std::vector<std::size_t>> consumers_;
  std::set<std::string> graph_outputs_;
  std::set<std::size_t> removed_;
};

}  // namespace

Fusion fuse_qdq(const Model& model) { return Fuser(model).run(); }

}  // namespace treesim::graph
