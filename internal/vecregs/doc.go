// Package vecregs reads the AVX-512 registers, for tests of the engines'
// assembly: that a function which held secrets in vector or mask
// registers leaves none of them behind. Only tests import it.
package vecregs
