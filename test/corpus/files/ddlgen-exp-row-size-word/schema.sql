use pubs2
go
setuser 'dbo'
go
create table titles (
	title_id varchar(6) not null,
	notes varchar(200) null
)
lock datarows
with exp_row_size = big, reservepagegap = 0
go
