import Glibc
import Harness
import LockFreeObservation
import Workloads

ProcessSetup.ensureDeterministicHashing()
let arguments = Array(CommandLine.arguments.dropFirst())
if Bench.measures(arguments) && ProcessSetup.refusesDebugBuild {
    Console.standard.err("bench: refusing to measure a debug build; build with 'swift run -c release bench'\n")
    exit(ExitCode.benchmarkFailed)
}
if Bench.measures(arguments) && registrarHasSchedulePoints {
    Console.standard.err(
        "bench: refusing to measure a build with the registrar's schedule points (SchedulePoints trait); rebuild without it\n")
    exit(ExitCode.benchmarkFailed)
}
exit(Bench(suite: Suite.all()).main(arguments))
