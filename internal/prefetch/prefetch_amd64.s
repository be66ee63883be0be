#include "textflag.h"

// func Line(p unsafe.Pointer)
TEXT ·Line(SB), NOSPLIT, $0-8
	MOVQ	p+0(FP), AX
	PREFETCHT0	(AX)
	RET

// func Span(p unsafe.Pointer, n uintptr)
TEXT ·Span(SB), NOSPLIT, $0-16
	MOVQ	p+0(FP), AX
	MOVQ	n+8(FP), BX
	PREFETCHT0	(AX)
	CMPQ	BX, $64
	JLS	done
	PREFETCHT0	64(AX)
	CMPQ	BX, $128
	JLS	done
	PREFETCHT0	128(AX)
	CMPQ	BX, $192
	JLS	done
	PREFETCHT0	192(AX)
	CMPQ	BX, $256
	JLS	done
	PREFETCHT0	-1(AX)(BX*1)
done:
	RET
