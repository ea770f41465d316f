// Package keccakx8 runs eight Keccak-f[1600] permutations at once with
// AVX-512F, for the engines that need many independent SHAKE and SHA-3
// streams (internal/mlkemavx: the nine XOFs of an ML-KEM matrix, the seven
// PRFs of an encapsulation). It holds the permutation and byte access to
// the eight states, no sponge: each caller pads and sets its rate, since
// its eight streams may differ in both.
//
// The package is built only on amd64 without the purego tag, and its
// permutation runs only where Available reports AVX-512F; everything else
// uses the standard library's SHA-3.
package keccakx8

//go:generate go run gen.go
