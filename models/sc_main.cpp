// libsystemc.so brings a main() that calls sc_main(). treesim's programs (the CLI, the tests, the
// benchmarks) have their own main() and elaborate through Board::simulate(), so this is never
// called; it exists because the shared library refers to it. Compiled into every program that
// links the models: models/CMakeLists.txt asks the linker for it, since nothing else would pull it
// from the library.
extern "C" int sc_main(int, char*[]) { return 1; }  // C linkage, as SystemC declares it
