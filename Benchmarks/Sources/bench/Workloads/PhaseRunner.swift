/// Runner mode for a one-phase workload: starts each selected contender that has the
/// workload (`bench --worker ID --workload W`), collects and checks their reports.
struct PhaseRunner {
    var options: Options
    var workload: WorkloadKind

    func run() -> [PhaseOutcome] {
        contenders
            .filter { (options.only?.contains($0.id) ?? true) && phaseLaunch(id: $0.id, workload: workload, options: options) != nil }
            .map { spec in
                logLine("== \(workload.rawValue): \(spec.title)")
                return measure(spec)
            }
    }

    private func measure(_ spec: ContenderSpec) -> PhaseOutcome {
        let program: [String] = switch phaseLaunch(id: spec.id, workload: workload, options: options) {
        case .program(let command)?: command
        default: [Runner.executablePath, "--worker", spec.id]
        }
        let command = program + ["--workload", workload.rawValue] + options.phaseArguments
        do {
            let report: PhaseReport = try Runner.report(from: Runner(options: options).runProcess(command))
            if let why = report.skipped { return PhaseOutcome(spec: spec, state: .skipped(why)) }
            guard let stats = Stats(report.seconds) else { return PhaseOutcome(spec: spec, state: .failed("the report has no timings")) }
            var measured = PhaseMeasure(run: stats)
            if let off = report.insertSeconds.flatMap(Stats.init), let on = report.historyInsertSeconds.flatMap(Stats.init) {
                measured.inserts = (off, on)
            }
            return PhaseOutcome(spec: spec, state: .measured(measured),
                                problems: checkPhase(report, id: spec.id, workload: workload, options: options), about: report.about)
        } catch {
            return PhaseOutcome(spec: spec, state: .failed("\(error)"))
        }
    }
}

/// What became of one contender in a one-phase workload: its row in the table.
typealias PhaseOutcome = Outcome<PhaseMeasure>

/// A one-phase workload's timings of one contender: its phase, and in history the inserts
/// with history tracking off and on of the contenders that time them.
struct PhaseMeasure {
    let run: Stats
    var inserts: (off: Stats, on: Stats)?
}
