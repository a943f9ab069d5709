module example.invalid/tandem/clients/go

go 1.19
