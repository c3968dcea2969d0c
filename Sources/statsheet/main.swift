/// Inside an async function the async `main()` of `AsyncParsableCommand` is chosen; at top level the
/// compiler picks the synchronous one, which cannot run async subcommands.
func start() async { await Statsheet.main() }
await start()
