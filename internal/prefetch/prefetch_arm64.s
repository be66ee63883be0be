#include "textflag.h"

// func Line(p unsafe.Pointer)
TEXT ·Line(SB), NOSPLIT, $0-8
	MOVD	p+0(FP), R0
	PRFM	(R0), PLDL1KEEP
	RET

// func Span(p unsafe.Pointer, n uintptr)
TEXT ·Span(SB), NOSPLIT, $0-16
	MOVD	p+0(FP), R0
	MOVD	n+8(FP), R1
	PRFM	(R0), PLDL1KEEP
	CMP	$64, R1
	BLS	done
	PRFM	64(R0), PLDL1KEEP
	CMP	$128, R1
	BLS	done
	PRFM	128(R0), PLDL1KEEP
	CMP	$192, R1
	BLS	done
	PRFM	192(R0), PLDL1KEEP
	CMP	$256, R1
	BLS	done
	ADD	R1, R0, R2
	SUB	$1, R2, R2
	PRFM	(R2), PLDL1KEEP
done:
	RET
