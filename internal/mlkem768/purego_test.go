//go:build purego

package mlkem768

// purego: Go refuses FIPS 140-3 mode in this build.
const purego = true
