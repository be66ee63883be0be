//go:build !race

package zlite

// raceEnabled scales the stress tests down under the race detector.
const raceEnabled = false
