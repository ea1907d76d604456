use pubs2
go
setuser 'dbo'
go
create table titles (
	title_id tid not null,
	notes varchar(200) null
)
go
