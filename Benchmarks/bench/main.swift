import Glibc
import Harness
import LockFreeObservation
import Workloads

ProcessSetup.ensureDeterministicHashing()

/// Why this build's figures would mean nothing, if they would.
let buildRefusal: String? =
    if ProcessSetup.refusesDebugBuild {
        "refusing to measure a debug build; build with 'swift run -c release bench'"
    } else if registrarHasSchedulePoints {
        "refusing to measure a build with the registrar's schedule points (SchedulePoints trait); rebuild without it"
    } else {
        nil
    }

let arguments = Array(CommandLine.arguments.dropFirst())
// Once per command: the measuring children (`__measure`) run the same build and stay quiet.
if !faultInjections.isEmpty && arguments.first != ChildProcessExecutor.subcommand {
    Console.standard.err(
        """
        bench: WARNING: this build injects faults for the gate's self-check (\(faultInjections.joined(separator: ", "))):
        bench: WARNING: its figures are not real; results record the faults and 'check' refuses them as a baseline

        """)
}
// In `run` and `check`, Ctrl-C, SIGTERM and SIGHUP stop the measuring children and write what was
// measured (a measuring child is in its own process group, and dies of them by default); `bench`
// then dies of the signal it got, as a shell loop expects. A reader that goes away (`| head`)
// does not stop it before it writes its files.
if arguments.first != ChildProcessExecutor.subcommand {
    signal(SIGPIPE, SIG_IGN)
    if (try? Parser.parse(arguments))?.measures == true { Interruption.process.trap() }
}
// One render-cost calibration for the run, inherited by every measuring child.
if arguments.first != ChildProcessExecutor.subcommand { RenderCalibration.share() }
let bench = Bench(
    suite: Suite.all(), faultInjections: faultInjections, buildRefusal: buildRefusal,
    probe: Probe.executable(beside: ChildProcessExecutor.currentExecutable))
let status = bench.main(arguments)
if status == ExitCode.interrupted.rawValue, let signal = Interruption.process.signal { Interruption.dieOf(signal) }
exit(status)
