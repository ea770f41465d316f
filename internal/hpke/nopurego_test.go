//go:build !purego

package hpke

const purego = false
