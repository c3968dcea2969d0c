// Times the digit network's forward pass on one core: `swift run -c release digitbench [weights.bin]`.
// Prints the median over 7 rounds of the time per digit (1,000 digits a round). Without a weights file
// it uses random weights of the right shape: the arithmetic, and so the time, is the same.
import DigitNet
import Foundation

let arguments = CommandLine.arguments.dropFirst()
let network: DigitNetwork
if let path = arguments.first {
    network = try DigitNetwork(contentsOf: URL(fileURLWithPath: path))
} else {
    let count = [16 * 9, 16, 16 * 16 * 9, 16, 32 * 16 * 9, 32, 32 * 32 * 9, 32, 128 * 1568, 128, 11 * 128, 11].reduce(0, +)
    let weights = (0..<count).map { Float(($0 * 7919) % 1000) / 5000 - 0.1 }
    network = try DigitNetwork(weights: weights.withUnsafeBytes { Data($0) }, temperature: 1)
}
let input = (0..<784).map { Float(($0 * 31) % 17) / 17 }
var sink: Float = 0
var rounds: [Double] = []
for _ in 0..<7 {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<1000 { sink += network.probabilities(input)[3] }
    rounds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / 1000)
}
rounds.sort()
print(String(format: "digit network: median %.3f ms per digit (rounds %.3f–%.3f ms; checksum %.3f)",
             rounds[3], rounds[0], rounds[6], sink))
