//go:build !race

package fuzz

// raceEnabled scales the randomized tests down under the race detector.
const raceEnabled = false
