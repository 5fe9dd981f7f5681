// SystemC's shared library brings a main() that calls sc_main(); every treesim program (the CLI,
// the tests, the benchmarks) has its own main() and runs simulations through models::Simulation,
// so this is never called. It exists because libsystemc.so refers to it; tools/CMakeLists.txt
// builds it once as an object that every program links.
extern "C" int sc_main(int, char*[]) { return 1; }  // C linkage, as SystemC declares it
