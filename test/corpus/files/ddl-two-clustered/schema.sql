create table t (a int not null, b int not null)
create clustered index t_a on t (a)
create clustered index t_b on t (b)
