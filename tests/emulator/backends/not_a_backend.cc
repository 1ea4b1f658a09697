// A shared library that is not a backend: it exports no entry points.
extern "C" __attribute__((visibility("default"))) int not_a_backend_answer() { return 42; }
