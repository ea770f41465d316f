//go:build purego

package hpke

// purego: Go refuses FIPS 140-3 mode in this build.
const purego = true
