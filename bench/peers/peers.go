// Package peers benchmarks fanseal beside the libraries a user would pick
// instead: age (X25519 and its ML-KEM-768+X25519 hybrid), Go's crypto/hpke
// in a loop, circl's HPKE and Tink's ECIES, sealing a 32-byte key for n
// recipients and opening it as the last one. It is a module of its own, so
// none of these libraries enters fanseal's dependency graph.
//
// Run it, and render docs/PERFORMANCE.md, with bench/peers/run.sh.
package peers
