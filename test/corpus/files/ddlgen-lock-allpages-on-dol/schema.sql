use pubs2
go
setuser 'dbo'
go
create table titles (
	title_id varchar(6) not null,
	notes varchar(200) null
)
lock allpages
go
