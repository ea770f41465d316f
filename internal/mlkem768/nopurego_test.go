//go:build !purego

package mlkem768

const purego = false
