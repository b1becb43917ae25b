import Glibc
import Contenders
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
if !faultInjections.isEmpty {
    Console.standard.err(
        """
        bench: WARNING: this build injects faults for the gate's self-check (\(faultInjections.joined(separator: ", "))):
        bench: WARNING: its figures are not real; results record the faults and 'check' refuses them as a baseline

        """)
}
exit(Bench(suite: Suite.all(), faultInjections: faultInjections).main(arguments))
