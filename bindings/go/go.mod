module github.com/libkpc/libkpc/bindings/go

go 1.19
