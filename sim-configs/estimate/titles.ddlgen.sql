-- EXAMPLE ONLY: written for rowsim's documentation in the shape of what SAP ASE's ddlgen prints for
-- one table (ddlgen -U… -S… -TU -Ntitles -Dpubs2). Not captured from a server: the table is pubs2's
-- titles, with the exp_row_size, reservepagegap and partitioning of the worked example in
-- docs/estimate.md.

exec sp_addtype 'tid', 'varchar(6)', 'not null'
go

-----------------------------------------------------------------------------
-- DDL for Group 'editors'
-----------------------------------------------------------------------------

print '<<<<< CREATING Group - "editors" >>>>>'
go

use pubs2
go

exec sp_addgroup 'editors'
go

-----------------------------------------------------------------------------
-- DDL for UserTable 'pubs2.dbo.titles'
-----------------------------------------------------------------------------

print '<<<<< CREATING UserTable - "pubs2.dbo.titles" >>>>>'
go

use pubs2
go

setuser 'dbo'
go

create table titles (
	title_id                        tid                              not null,
	title                           varchar(80)                      not null,
	type                            char(12)                         not null,
	pub_id                          char(4)                              null,
	price                           money                                null,
	advance                         money                                null,
	total_sales                     int                                  null,
	notes                           varchar(200)                         null,
	pubdate                         datetime                         not null,
	contract                        bit                              not null 
)
lock datarows
with exp_row_size = 150, reservepagegap = 16, identity_gap = 0
on 'default'
partition by roundrobin 1
go

Grant Select on dbo.titles to public
go
Grant Update on dbo.titles to editors
go

setuser
go

-----------------------------------------------------------------------------
-- DDL for Index 'titleidind'
-----------------------------------------------------------------------------

print '<<<<< CREATING Index - "titleidind" >>>>>'
go

create unique nonclustered index titleidind 
on pubs2.dbo.titles(title_id)
with reservepagegap = 16
on 'default'
go

-----------------------------------------------------------------------------
-- DDL for Trigger 'pubs2.dbo.deltitle'
-----------------------------------------------------------------------------

print '<<<<< CREATING Trigger - "pubs2.dbo.deltitle" >>>>>'
go

setuser 'dbo'
go

create trigger deltitle
on titles
for delete
as
if (select count(*) from deleted, salesdetail
   where salesdetail.title_id = deleted.title_id) > 0
begin
   rollback transaction
   print "You cannot delete a title with sales."
end
go

setuser
go
