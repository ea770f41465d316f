//go:build !amd64 || purego

package mlkem768

// fastAvailable is false: circl's vector code is amd64's, and the purego
// build leaves it out.
func fastAvailable() bool { return false }

func fastImplementation() implementation { return stdImplementation{} }
