import ArgumentParser
struct Doctor: ParsableCommand {
    func run() throws {}
}
