//go:build race

package fanseal

const raceEnabled = true
