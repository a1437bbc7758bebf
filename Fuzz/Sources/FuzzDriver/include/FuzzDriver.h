#ifndef ENDPOINTS_FUZZ_DRIVER_H
#define ENDPOINTS_FUZZ_DRIVER_H

/// Runs libFuzzer on the target's LLVMFuzzerTestOneInput. SwiftPM links each executable with
/// `main` defined as `<Target>_main`, so libFuzzer's own `main` is never linked; each target
/// defines that symbol and calls this.
int endpoints_fuzz_main(int argc, char **argv);

#endif
