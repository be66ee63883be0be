//go:build race

package list

// raceEnabled scales randomized tests down under the race detector.
const raceEnabled = true
