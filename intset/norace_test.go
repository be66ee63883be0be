//go:build !race

package intset

// raceEnabled scales randomized tests down under the race detector.
const raceEnabled = false
