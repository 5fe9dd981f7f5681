#include "models/hierarchy.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <systemc>
#include <typeinfo>

namespace treesim::models {
namespace {

// "treesim::models::Sequencer" → "Sequencer".
std::string class_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> full(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                              std::free);
  std::string s = status == 0 && full ? full.get() : type.name();
  const std::size_t template_start = s.find('<');
  const std::size_t last = s.rfind("::", template_start);
  return last == std::string::npos ? s : s.substr(last + 2);
}

void walk(sc_core::sc_object* object, std::vector<ModuleInfo>& out) {
  auto* module = dynamic_cast<sc_core::sc_module*>(object);
  if (!module) return;
  ModuleInfo info{module->name(), class_name(typeid(*module)), {}, {}, {}};
  std::vector<std::string> socket_names;
  for (sc_core::sc_object* child : module->get_child_objects()) {
    const std::string kind = child->kind();
    if (kind == "tlm_initiator_socket" || kind == "tlm_target_socket") {
      socket_names.push_back(child->basename());
      info.sockets.push_back(std::string(child->basename()) +
                             (kind == "tlm_initiator_socket" ? " (initiator)" : " (target)"));
    }
  }
  auto of_socket = [&](const std::string& name) {
    for (const std::string& s : socket_names)
      if (name.compare(0, s.size() + 1, s + "_") == 0) return true;
    return false;
  };
  for (sc_core::sc_object* child : module->get_child_objects()) {
    const std::string kind = child->kind(), name = child->basename();
    if (kind == "sc_thread_process" || kind == "sc_cthread_process") {
      info.processes.push_back(name + " (thread)");
    } else if (kind == "sc_method_process") {
      info.processes.push_back(name + " (method)");
    } else if (kind == "sc_port" && !of_socket(name)) {
      auto* port = dynamic_cast<sc_core::sc_port_base*>(child);
      info.ports.push_back(name + " (port, " + std::to_string(port ? port->bind_count() : 0) + " bound)");
    } else if (kind == "sc_export" && !of_socket(name)) {
      info.ports.push_back(name + " (export)");
    }
  }
  out.push_back(std::move(info));
  for (sc_core::sc_object* child : module->get_child_objects()) walk(child, out);
}

}  // namespace

std::vector<ModuleInfo> hierarchy() {
  std::vector<ModuleInfo> out;
  for (sc_core::sc_object* top : sc_core::sc_get_top_level_objects()) walk(top, out);
  return out;
}

}  // namespace treesim::models
