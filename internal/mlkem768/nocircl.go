//go:build !amd64 || purego

package mlkem768

// fastImplementations is empty: the vector code, circl's and fanseal's,
// is amd64's, and the purego build leaves it out.
func fastImplementations() []implementation { return nil }
